-- A periodic 5-point stencil by `rotate` (issue 20; timed against
-- stencil.c by run.py).
-- ==
-- input { 1 [[1.0f32, 2.0f32, 3.0f32], [4.0f32, 5.0f32, 6.0f32]] }
-- auto output
-- random input { 3 [5][7]f32 } auto output

-- ==
-- random input { 8 [2048][2048]f32 }
-- tags { bench }

entry main [n] [m] (steps: i32) (g0: [n][m]f32) : [n][m]f32 =
  loop g = g0 for _i < steps do
    let up = rotate (-1) g
    let down = rotate 1 g
    let left = map (rotate (-1)) g
    let right = map (rotate 1) g
    in map5 (map5 (\c u d l r -> 0.2f32 * (c + u + d + l + r))) g up down left right
