-- Matmul-like nests: a map over rows of a map over columns of a reduction
-- of elements read at the reduction's index. On a GPU they run in square
-- tiles of the output with the operands staged in shared memory
-- (docs/gpu.md, "Tiled products"); under shrunk launches (ARRC_GPU_SHRINK=1)
-- a tile is 16 x 16 and a block takes k in steps of 4, so the sizes below
-- cover partial tiles, several tiles per block, and empty dimensions.

-- ==
-- entry: mul_bt
-- input { [[1.0f32, 2.0f32], [3.0f32, 4.0f32]] [[5.0f32, 6.0f32], [7.0f32, 8.0f32]] }
-- output { [[17.0f32, 23.0f32], [39.0f32, 53.0f32]] }
-- random input { [0][3]f32 [4][3]f32 } auto output
-- input { empty([3][0]f32) empty([2][0]f32) } output { [[0.0f32, 0.0f32], [0.0f32, 0.0f32], [0.0f32, 0.0f32]] }
-- random input { [37][19]f32 [23][19]f32 } auto output
-- random input { [16][4]f32 [16][4]f32 } auto output
-- random input { [5][70]f32 [41][70]f32 } auto output

-- A times the transpose of B: both operands read along their rows.
entry mul_bt [n][k][m] (a: [n][k]f32) (b: [m][k]f32) : [n][m]f32 =
  map (\row -> map (\col -> reduce (+) 0 (map2 (*) row col)) b) a

-- ==
-- entry: mul
-- input { [[1i64, 2i64, 3i64]] [[1i64], [1i64], [1i64]] } output { [[12i64]] }
-- random input { [2][0]i64 [0][3]i64 } auto output
-- random input { [2][3]i64 [3][0]i64 } auto output
-- random input { [33][17]i64 [17][29]i64 } auto output
-- random input { [1][50]i64 [50][1]i64 } auto output

-- A times B, B read down its columns, with an epilogue on each result.
entry mul [n][k][m] (a: [n][k]i64) (b: [k][m]i64) : [n][m]i64 =
  map (\row -> map (\j -> 2 * reduce (+) 0 (map2 (*) row b[:, j]) + j) (iota m)) a

-- ==
-- entry: batched
-- random input { [3][9][11]f64 [3][13][11]f64 } auto output
-- random input { [2][20][5]f64 [2][18][5]f64 } auto output
-- random input { [0][2][2]f64 [0][2][2]f64 } auto output
-- random input { [2][0][3]f64 [2][4][3]f64 } auto output

-- Batched products of A and the transpose of B.
entry batched [p][n][k][m] (a: [p][n][k]f64) (b: [p][m][k]f64) : [p][n][m]f64 =
  map2 (\x y -> map (\row -> map (\col -> reduce (+) 0 (map2 (*) row col)) y) x) a b

-- ==
-- entry: scaled_affine
-- random input { [21][9]i32 [9][18]i32 [9]i32 } auto output

-- A vector read at k alone, two values per output, and an operator that
-- is associative but not commutative (affine maps composed in order).
entry scaled_affine [n][k][m] (a: [n][k]i32) (b: [k][m]i32) (w: [k]i32) : ([n][m]i32, [n][m]i32) =
  unzip (map (\row -> unzip (
         map (\j ->
                reduce (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1, 0)
                       (map3 (\x y z -> (x % 3 - 1, y * z)) row b[:, j] w))
             (iota m))) a)

-- ==
-- entry: fails
-- random input { [30][9]i64 [20][9]i64 -1i64 30i64 } auto output
-- random input { [30][9]i64 [20][9]i64 25i64 30i64 } error: ^division by zero at .*matmul_tiled\.arr:77:
-- random input { [30][9]i64 [20][9]i64 25i64 3i64 } error: ^index 20 out of bounds for array of length 20 at .*matmul_tiled\.arr:76:
-- random input { [30][9]i64 [20][9]i64 2i64 3i64 } error: ^division by zero at .*matmul_tiled\.arr:77:
-- random input { [30][9]i64 [20][9]i64 3i64 3i64 } error: ^division by zero at .*matmul_tiled\.arr:77:
-- random input { [30][9]i64 [20][9]i64 17i64 17i64 } error: ^division by zero at .*matmul_tiled\.arr:77:
-- random input { [30][0]i64 [20][0]i64 17i64 17i64 } error: ^division by zero at .*matmul_tiled\.arr:77:

-- Checks after each output's reduction: the last column reads out of
-- bounds from row q on, and row zr divides by zero: the first in
-- sequential order is reported, across tiles and blocks.
entry fails [n][m][k] (a: [n][k]i64) (b: [m][k]i64) (zr: i64) (q: i64) : [n][m]i64 =
  let ys = iota m
  in map2 (\i row ->
             map2 (\j col ->
                     let s = reduce (+) 0 (map2 (*) row col)
                     let y = if i >= q && j == m - 1 then ys[j + 1] else ys[j]
                     in s / (if i == zr then 0 else 1) + y)
                  (iota m) b)
          (iota n) a

-- ==
-- entry: batched_t
-- random input { [3][9][11]f64 [3][11][13]f64 } auto output

-- Batched products through the standard transpose (fused into each
-- batch's iteration: not a tiled nest).
entry batched_t [p][n][k][m] (a: [p][n][k]f64) (b: [p][k][m]f64) : [p][n][m]f64 =
  map2 (\x y -> map (\row -> map (\col -> reduce (+) 0 (map2 (*) row col)) (transpose y)) x) a b
