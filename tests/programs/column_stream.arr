-- Reductions down the columns of wide matrices (issue 20): from 4096
-- columns the CPU streams the rows through a block's sums
-- (`loopy::jam::stream`) instead of walking strips of 64 columns down
-- them; each column still folds its rows in order, so the results are
-- the interpreter's whatever the operator. Shapes with no row, one row,
-- odd widths, wide and tall; f32, f64, i32; the same by `tabulate` and by
-- indices; a value per column; an operator that does not commute; a
-- checked read per row that fails.

-- ==
-- entry: vecmat
-- random input { [0][4100]f32 [0]f32 } auto output
-- random input { [1][4096]f32 [1]f32 } auto output
-- random input { [7][4099]f32 [7]f32 } auto output
-- random input { [2][20001]f32 [2]f32 } auto output
-- random input { [150][4097]f32 [150]f32 } auto output
-- random input { [3][4095]f32 [3]f32 } auto output

entry vecmat [n] [m] (a: [n][m]f32) (v: [n]f32) : [m]f32 =
  map (\col -> f32.sum (map2 (*) col v)) (transpose a)

-- ==
-- entry: vecmat64
-- random input { [5][4111]f64 [5]f64 } auto output
-- random input { [1][8193]f64 [1]f64 } auto output

entry vecmat64 [n] [m] (a: [n][m]f64) (v: [n]f64) : [m]f64 =
  map (\col -> f64.sum (map2 (*) col v)) (transpose a)

-- ==
-- entry: column_sums
-- random input { [9][4103]i32 } auto output
-- random input { [0][5000]i32 } auto output

entry column_sums [n] [m] (a: [n][m]i32) : [m]i32 =
  map i32.sum (transpose a)

-- ==
-- entry: tabulated
-- random input { [6][4099]f32 [6]f32 } auto output

entry tabulated [n] [m] (a: [n][m]f32) (v: [n]f32) : [m]f32 =
  tabulate m (\j -> f32.sum (tabulate n (\i -> a[i, j] * v[i])))

-- ==
-- entry: indexed
-- random input { [4][4200]f64 [4]f64 } auto output

entry indexed [n] [m] (a: [n][m]f64) (v: [n]f64) : [m]f64 =
  map (\j -> f64.sum (map (\i -> a[i, j] * v[i]) (iota n))) (iota m)

-- ==
-- entry: scaled
-- random input { [5][4097]f32 [5]f32 [4097]f32 } auto output

entry scaled [n] [m] (a: [n][m]f32) (v: [n]f32) (w: [m]f32) : [m]f32 =
  map2 (\col s -> s * f32.sum (map2 (*) col v)) (transpose a) w

-- Affine maps composed in order: associative, not commutative.
-- ==
-- entry: composed
-- random input { [8][4101]i32 [8][4101]i32 } auto output
-- random input { [1][4096]i32 [1][4096]i32 } auto output

entry composed [n] [m] (a: [n][m]i32) (b: [n][m]i32) : [m]i32 =
  map2 (\ca cb ->
          (reduce (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1, 0) (zip ca cb)).1)
       (transpose a) (transpose b)

-- ==
-- entry: gathered
-- random input { [3][4100]i32 [3]i64 [0]i32 } error: ^index -?[0-9]+ out of bounds for array of length 0 at .*column_stream\.arr:75:43$

entry gathered [n] [m] (a: [n][m]i32) (idx: [n]i64) (v: []i32) : [m]i32 =
  map (\col -> i32.sum (map2 (\x k -> x * v[k]) col idx)) (transpose a)
