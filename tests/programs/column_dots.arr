-- Reductions down the columns of a matrix (issue 20: a vector-matrix
-- product by `transpose`, 9x slower than C): the CPU runs up to 64
-- neighbouring columns together, one accumulator each (`loopy::jam`),
-- and the columns after the last full block one by one. Widths below,
-- at and past a block, and a read that fails: alike in every column, so
-- the first error is still the interpreter's.

-- ==
-- entry: vecmat
-- input { [[1.0f32, 2.0f32], [3.0f32, 4.0f32], [5.0f32, 6.0f32]] [1.0f32, 0.5f32, 2.0f32] }
-- output { [12.5f32, 16.0f32] }
-- input { empty([0][3]f32) empty([0]f32) } output { [0.0f32, 0.0f32, 0.0f32] }
-- random input { [5][64]f32 [5]f32 } auto output
-- random input { [3][130]f32 [3]f32 } auto output
-- random input { [9][200]f32 [9]f32 } auto output

entry vecmat [n] [m] (a: [n][m]f32) (v: [n]f32) : [m]f32 =
  map (\col -> f32.sum (map2 (*) col v)) (transpose a)

-- ==
-- entry: column_sums
-- random input { [7][129]i32 } auto output
-- random input { [2][3]i32 } auto output

entry column_sums [n] [m] (a: [n][m]i32) : [m]i32 =
  map i32.sum (transpose a)

-- ==
-- entry: gathered
-- input { [[1, 2], [3, 4]] [1i64, 0i64] [10, 20] } output { [50, 80] }
-- random input { [3][100]i32 [3]i64 [0]i32 } error: ^index -?[0-9]+ out of bounds for array of length 0 at .*column_dots\.arr:34:43$

entry gathered [n] [m] (a: [n][m]i32) (idx: [n]i64) (v: []i32) : [m]i32 =
  map (\col -> i32.sum (map2 (\x k -> x * v[k]) col idx)) (transpose a)
