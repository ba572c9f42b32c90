-- Nested parallelism: SOACs inside the functions of other SOACs (map of
-- reduce, map of scan, map of map of map, reduce over arrays, a SOAC on
-- a row selected by index, and a nested SOAC using the outer variable).

-- ==
-- entry: map_scan
-- input { [[1, 2, 3], [4, 5, 6]] } output { [[1, 3, 6], [4, 9, 15]] }

entry map_scan (m: [][]i32) : [][]i32 = map (scan (+) 0) m

-- ==
-- entry: map_reduce_outer
-- input { [1, 2, 3] [10, 20] } output { [31, 32, 33] }

-- The inner SOACs use the outer map's element (not as the reduction's
-- neutral element, which must be neutral: parallel chunks each start
-- from it).
entry map_reduce_outer (xs: []i32) (ys: []i32) : []i32 =
  map (\x -> reduce (+) 0 (map (+ x) ys) - x) xs

-- ==
-- entry: triple
-- input { [[[1, 2], [3, 4]], [[5, 6], [7, 8]]] } output { [[[2, 4], [6, 8]], [[10, 12], [14, 16]]] }

entry triple (t: [][][]i32) : [][][]i32 = map (map (map (* 2))) t

-- ==
-- entry: reduce_rows
-- input { [[1, 2], [3, 4], [5, 6]] } output { [9, 12] }
-- input { empty([0][2]i32) } output { [0, 0] }

-- reduce with array-valued elements: column sums.
entry reduce_rows [n][m] (a: [n][m]i32) : [m]i32 =
  reduce (map2 (+)) (replicate m 0) a

-- ==
-- entry: scan_rows
-- input { [[1, 2], [3, 4], [5, 6]] } output { [[1, 2], [4, 6], [9, 12]] }

-- scan with array-valued elements.
entry scan_rows [n][m] (a: [n][m]i32) : [n][m]i32 =
  scan (map2 (+)) (replicate m 0) a

-- ==
-- entry: matvec
-- input { [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] [10.0, 1.0] } output { [12.0, 34.0, 56.0] }

entry matvec (m: [][]f64) (v: []f64) : []f64 =
  map (\row -> reduce (+) 0 (map2 (*) row v)) m

-- ==
-- entry: pairwise
-- input { [1, 5, 3] } output { [[0, -4, -2], [4, 0, 2], [2, -2, 0]] [0, 2, 1] }

-- Pairwise differences, and for each element how many are smaller.
entry pairwise (xs: []i32) : ([][]i32, []i32) =
  ( map (\x -> map (\y -> x - y) xs) xs
  , map (\x -> reduce (+) 0 (map (\y -> if y < x then 1 else 0) xs)) xs )

-- ==
-- entry: map_iota_ragged_sum
-- input { 4i64 } output { [0i64, 0i64, 1i64, 3i64] }

-- The inner iota's size depends on the outer element; only its sum leaves
-- the function, so the result is regular.
entry map_iota_ragged_sum (n: i64) : []i64 =
  map (\i -> reduce (+) 0 (iota i)) (iota n)
