-- Multi-dimensional arrays: literals, indexing a[i, j] and a[i][j], rows,
-- map over rows, replicate of arrays, iota-built matrices, 3-D arrays,
-- and irregular input rejected.

-- ==
-- entry: index2
-- input { [[1, 2, 3], [4, 5, 6]] 1i64 2i64 } output { 6 6 [4, 5, 6] 2i64 3i64 }
-- input { [[1, 2, 3], [4, 5, 6]] 2i64 0i64 } error: index 2 out of bounds
-- input { [[1, 2, 3], [4, 5, 6]] 0i64 3i64 } error: index 3 out of bounds

entry index2 (m: [][]i32) (i: i64) (j: i64) : (i32, i32, []i32, i64, i64) =
  (m[i, j], m[i][j], m[i], length m, length m[0])

-- ==
-- entry: row_sums
-- input { [[1, 2, 3], [4, 5, 6]] } output { [6, 15] [5, 7, 9] }
-- input { empty([0][3]i32) } output { empty([0]i32) [0, 0, 0] }

-- Sum of each row, and sum of each column by map over the column index.
entry row_sums [n][m] (a: [n][m]i32) : ([n]i32, [m]i32) =
  ( map (\row -> reduce (+) 0 row) a
  , map (\j -> reduce (+) 0 (map (\row -> row[j]) a)) (iota m) )

-- ==
-- entry: literal2
-- input { 5 } output { [[5, 0], [0, 5]] [[[1, 2]], [[3, 4]]] }

entry literal2 (x: i32) : ([][]i32, [][][]i32) =
  ([[x, 0], [0, x]], [[[1, 2]], [[3, 4]]])

-- ==
-- entry: replicate_rows
-- input { 3i64 [1.5, 2.5] } output { [[1.5, 2.5], [1.5, 2.5], [1.5, 2.5]] }
-- input { 0i64 [1.5, 2.5] } output { empty([0][2]f64) }

entry replicate_rows (n: i64) (row: []f64) : [][]f64 = replicate n row

-- ==
-- entry: identity
-- input { 3i64 } output { [[1, 0, 0], [0, 1, 0], [0, 0, 1]] }

entry identity (n: i64) : [n][n]i32 =
  map (\i -> map (\j -> if i == j then 1 else 0) (iota n)) (iota n)

-- ==
-- entry: cube
-- input { [[[1, 2], [3, 4]], [[5, 6], [7, 8]]] } output { 36 [[6, 8], [10, 12]] 7 }

entry cube (t: [][][]i32) : (i32, [][]i32, i32) =
  ( reduce (+) 0 (map (\m -> reduce (+) 0 (map (\r -> reduce (+) 0 r) m)) t)
  , map2 (\r1 r2 -> map2 (+) r1 r2) t[0] t[1]
  , t[1, 1, 0] )

-- ==
-- entry: irregular
-- input { [[1, 2], [3]] } error: argument 1
-- input { [[1, 2], [3, 4]] } output { 4i64 }

-- Arrays are regular: ragged input is rejected.
entry irregular (m: [][]i32) : i64 = length m * length m[0]

-- ==
-- entry: bool2d
-- input { [[true, false], [false, false]] } output { [true, false] [[false, true], [true, true]] }

entry bool2d (m: [][]bool) : ([]bool, [][]bool) =
  (map (\r -> reduce (||) false r) m, map (map (\b -> !b)) m)

-- ==
-- entry: f32_matrix_scale
-- input { [[1.0f32, 2.0f32], [3.0f32, 4.0f32]] 0.5f32 } output { [[0.5f32, 1.0f32], [1.5f32, 2.0f32]] }

entry f32_matrix_scale (m: [][]f32) (s: f32) : [][]f32 = map (map (* s)) m
