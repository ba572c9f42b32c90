-- Histograms whose bins are rows, over many iterations and few columns.
-- On a GPU the iterations are cut into chunks of a thread each, with
-- private copies of the bins, then combined bin element by bin element
-- in chunk order into the destination (docs/gpu.md, "Histograms of rows
-- in chunks"); few iterations, many bins or many columns keep a thread
-- per column.

-- ==
-- entry: rowhist
-- input { 3i64 empty([0]i64) empty([0][2]i64) } output { [[0i64, 0i64], [0i64, 0i64], [0i64, 0i64]] }
-- input { 0i64 [1i64, 2i64] [[1i64, 2i64], [3i64, 4i64]] } output { empty([0][2]i64) }
-- input { 2i64 [1i64] [[5i64, 6i64, 7i64]] } output { [[5i64, 6i64, 7i64], [0i64, 0i64, 0i64]] }
-- random input { 10i64 [5000]i64 [5000][3]i64 } auto output
-- random input { 3i64 [5000]i64 [5000][1]i64 } auto output
-- random input { 4i64 [4000]i64 [4000][0]i64 } auto output
-- random input { 10i64 [200]i64 [200][45]i64 } auto output
-- random input { 5i64 [20000]i64 [20000][5]i64 } auto output
-- random input { 400i64 [6000]i64 [6000][3]i64 } auto output

-- Indices outside the bins (negative ones, and those at or past k) are
-- skipped.
entry rowhist [n][m] (k: i64) (is: [n]i64) (xss: [n][m]i64) : [k][m]i64 =
  reduce_by_index (replicate k (replicate m 0)) (map2 (+)) (replicate m 0) (map (\i -> i % (k + 2) - 1) is) xss

-- ==
-- entry: hist4
-- random input { 7i64 [5000]i64 [5000][4]i32 } auto output
-- random input { 7i64 [30]i64 [30][4]i32 } auto output

-- A constant width: the inner map is unrolled, no column form fits.
entry hist4 [n] (k: i64) (is: [n]i64) (xss: [n][4]i32) : [k][4]i32 =
  hist (map2 (+)) (replicate 4 0) k (map (\i -> i % k) is) xss

-- ==
-- entry: maxes
-- random input { [6][3]i64 [5000]i64 [5000][3]i64 } auto output

-- Into a destination that is not the neutral element: its rows come
-- first.
entry maxes [k][n][m] (dest: [k][m]i64) (is: [n]i64) (xss: [n][m]i64) : [k][m]i64 =
  reduce_by_index dest (map2 i64.max) (replicate m i64.lowest) (map (\i -> i % k) is) xss

-- ==
-- entry: seen
-- random input { 8i64 [9000]i64 [9000][5]i64 } auto output

-- Booleans (a byte each in memory).
entry seen [m] (k: i64) (is: []i64) (xss: [][m]i64) : [k][m]bool =
  reduce_by_index (replicate k (replicate m false)) (map2 (||)) (replicate m false)
    (map (\i -> i % k) is) (map (map (\x -> x % 64 == 0)) xss)

-- ==
-- entry: fails
-- input { 5000i64 -1i64 -1i64 } output { [[6247500i64, 6250000i64, 6252500i64], [6250000i64, 6252500i64, 6255000i64]] }
-- input { 5000i64 4000i64 -1i64 } error: ^index 4010 out of bounds for array of length 10 at .*hist_chunks\.arr:66:
-- input { 5000i64 -1i64 300i64 } error: ^division by zero at .*hist_chunks\.arr:67:
-- input { 5000i64 4000i64 300i64 } error: ^division by zero at .*hist_chunks\.arr:67:
-- input { 5000i64 300i64 4000i64 } error: ^index 310 out of bounds for array of length 10 at .*hist_chunks\.arr:66:
-- input { 5000i64 4999i64 4998i64 } error: ^division by zero at .*hist_chunks\.arr:67:
-- input { 5000i64 0i64 1i64 } error: ^index 10 out of bounds for array of length 10 at .*hist_chunks\.arr:66:

-- Checks in the iterations: an early one wins, whichever chunk it is in.
entry fails (n: i64) (bad_index: i64) (bad_div: i64) : [2][3]i64 =
  let table = iota 10
  in reduce_by_index (replicate 2 (replicate 3 0)) (map2 (+)) (replicate 3 0) (map (% 2) (iota n))
       (map (\i -> map (\j -> if i == bad_index then table[i + 10 + j]
                              else if i == bad_div then i / (j - j)
                              else i + j) (iota 3)) (iota n))
