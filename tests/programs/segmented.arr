-- Reductions and scans whose accumulator is an array, and histograms whose
-- bins are rows: on a GPU a thread per element (column) of the
-- accumulator or bin row runs the iterations in order (docs/gpu.md,
-- "Segmented forms"); with no columns, one thread.

-- ==
-- entry: colsums
-- input { [[1i64, 2i64, 3i64], [4i64, 5i64, 6i64]] } output { [5i64, 7i64, 9i64] }
-- input { empty([0][4]i64) } output { [0i64, 0i64, 0i64, 0i64] }
-- random input { [50][7]i64 } auto output
-- random input { [30][300]i64 } auto output
entry colsums [n][m] (xss: [n][m]i64) : [m]i64 =
  reduce (map2 (+)) (replicate m 0) xss

-- ==
-- entry: last_positive
-- input { [[0i64, 3i64], [-1i64, 0i64], [7i64, -2i64]] } output { [7i64, 3i64] }
-- random input { [40][70]i64 } auto output

-- The last positive value of each column: associative, not commutative.
entry last_positive [n][m] (xss: [n][m]i64) : [m]i64 =
  reduce (map2 (\a b -> if b > 0 then b else a)) (replicate m 0) xss

-- ==
-- entry: colscan
-- input { [[1i64, 2i64], [3i64, 4i64], [5i64, 6i64]] } output { [[1i64, 2i64], [4i64, 6i64], [9i64, 12i64]] }
-- random input { [20][130]i64 } auto output
entry colscan [n][m] (xss: [n][m]i64) : [n][m]i64 =
  scan (map2 (+)) (replicate m 0) xss

-- ==
-- entry: rowhist
-- input { 3i64 [0i64, 2i64, 0i64, 5i64] [[1i64, 2i64], [3i64, 4i64], [5i64, 6i64], [7i64, 8i64]] }
-- output { [[6i64, 8i64], [0i64, 0i64], [10i64, 12i64]] }
-- input { 2i64 [0i64, 1i64] empty([2][0]i64) } output { [empty([0]i64), empty([0]i64)] }
-- random input { 10i64 [200]i64 [200][45]i64 } auto output
entry rowhist [n][m] (k: i64) (is: [n]i64) (xss: [n][m]i64) : [k][m]i64 =
  reduce_by_index (replicate k (replicate m 0)) (map2 (+)) (replicate m 0) (map (% k) is) xss

-- ==
-- entry: gathers
-- input { 30i64 50i64 -1i64 100000i64 } auto output
-- input { 30i64 50i64 -1i64 777i64 } error: ^index 777 out of bounds for array of length 100 at .*segmented\.arr:56:
-- input { 30i64 50i64 12i64 777i64 } error: ^division by zero at .*segmented\.arr:55:
-- input { 30i64 50i64 17i64 777i64 } error: ^index 777 out of bounds for array of length 100 at .*segmented\.arr:56:
-- input { 30i64 0i64 12i64 777i64 } error: ^division by zero at .*segmented\.arr:55:

-- Checks in each iteration before the columns' update (iteration z divides
-- by zero) and in it (the first element at or past k reads out of
-- bounds, in several columns and iterations): the first in sequential
-- order is reported, also with no columns.
entry gathers (n: i64) (m: i64) (z: i64) (k: i64) : [m]i64 =
  let hundred = iota 100
  in reduce (map2 (+)) (replicate m 0)
       (map (\i -> let d = 100 / (i - z)
                   in map (\j -> let v = i * m + j in if v >= k then hundred[v] else (v + d) % 100) (iota m)) (iota n))

-- ==
-- entry: two_checks
-- input { 30i64 50i64 100000i64 100000i64 } auto output
-- input { 30i64 50i64 140i64 100000i64 } error: ^index 140 out of bounds for array of length 100 at .*segmented\.arr:72:
-- input { 30i64 50i64 100000i64 20i64 } error: ^assertion failed at .*segmented\.arr:70:
-- input { 30i64 50i64 190i64 20i64 } error: ^index 190 out of bounds for array of length 100 at .*segmented\.arr:72:
-- input { 30i64 0i64 190i64 20i64 } output { empty([0]i64) }

-- A check in the element's producer and one in the accumulator's update
-- (run in order per column, so the operator may fail).
entry two_checks (n: i64) (m: i64) (k1: i64) (k2: i64) : [m]i64 =
  let hundred = iota 100
  in reduce (map2 (\a b -> assert (a + b < k2) (a + b))) (replicate m 0)
       (map (\i ->
          map (\j -> let v = i * m + j in if v >= k1 then hundred[v] else v % 7) (iota m)) (iota n))
