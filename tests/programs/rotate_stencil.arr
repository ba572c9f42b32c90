-- Reads of rotated arrays in maps (issue 20: a periodic 5-point stencil by
-- `rotate`): the index of a rotated read, (i + shift) mod n, is wrapped by
-- one conditional subtraction instead of a division; every amount, and
-- rows of other lengths than the rotated dimension, must read the same
-- elements as the interpreter.

-- ==
-- entry: stencil
-- input { 1 [[1.0f32, 2.0f32, 3.0f32], [4.0f32, 5.0f32, 6.0f32]] } auto output
-- input { 2 [[1.0f32]] } output { [[1.0f32]] }
-- input { 3 empty([0][4]f32) } output { empty([0][4]f32) }
-- random input { 3 [5][7]f32 } auto output
-- random input { 2 [1][9]f32 } auto output
-- random input { 2 [67][3]f32 } auto output

entry stencil [n] [m] (steps: i32) (g0: [n][m]f32) : [n][m]f32 =
  loop g = g0 for _i < steps do
    let up = rotate (-1) g
    let down = rotate 1 g
    let left = map (rotate (-1)) g
    let right = map (rotate 1) g
    in map5 (map5 (\c u d l r -> 0.2f32 * (c + u + d + l + r))) g up down left right

-- ==
-- entry: shifted
-- input { 1i64 [1, 2, 3, 4, 5] } output { [3, 5, 7, 9, 6] }
-- input { -1i64 [1, 2, 3, 4, 5] } output { [6, 3, 5, 7, 9] }
-- input { 12i64 [1, 2, 3, 4, 5] } output { [4, 6, 8, 5, 7] }
-- input { -13i64 [1, 2, 3, 4, 5] } output { [4, 6, 8, 5, 7] }
-- input { 5i64 [1, 2, 3, 4, 5] } output { [2, 4, 6, 8, 10] }
-- input { 4i64 empty([0]i32) } output { empty([0]i32) }
-- input { -9223372036854775808i64 [1, 2, 3] } auto output
-- input { 9223372036854775807i64 [1, 2, 3] } auto output

entry shifted (r: i64) (xs: []i32) : []i32 = map2 (+) xs (rotate r xs)

-- ==
-- entry: rows
-- input { 2i64 [[1, 2, 3], [4, 5, 6]] } output { [[3, 1, 2], [6, 4, 5]] }
-- input { -4i64 [[1, 2, 3], [4, 5, 6]] } output { [[3, 1, 2], [6, 4, 5]] }
-- random input { 3i64 [4][70]i32 } auto output

entry rows [n] [m] (r: i64) (xss: [n][m]i32) : [n][m]i32 = map (rotate r) xss
