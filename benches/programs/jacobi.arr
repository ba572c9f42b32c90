-- 2-D Jacobi relaxation: `sweeps` times, every interior point becomes the
-- mean of its four neighbours; the border stays fixed.
-- ==
-- input { 1 [[1.0f32, 1.0f32, 1.0f32], [1.0f32, 0.0f32, 1.0f32], [1.0f32, 1.0f32, 1.0f32]] }
-- output { [[1.0f32, 1.0f32, 1.0f32], [1.0f32, 1.0f32, 1.0f32], [1.0f32, 1.0f32, 1.0f32]] }
-- input { 2 [[0.0f32, 4.0f32, 0.0f32, 0.0f32], [0.0f32, 0.0f32, 0.0f32, 8.0f32], [0.0f32, 0.0f32, 0.0f32, 0.0f32], [0.0f32, 0.0f32, 0.0f32, 0.0f32]] }
-- output { [[0.0f32, 4.0f32, 0.0f32, 0.0f32], [0.0f32, 1.5f32, 2.25f32, 8.0f32], [0.0f32, 0.25f32, 0.5f32, 0.0f32], [0.0f32, 0.0f32, 0.0f32, 0.0f32]] }

-- ==
-- random input { 10 [4096][4096]f32 }
-- tags { bench }
entry main [n] [m] (sweeps: i32) (g0: [n][m]f32) : [n][m]f32 =
  loop g = g0 for _s < sweeps do
    tabulate_2d n m (\i j ->
      if i == 0 || j == 0 || i == n - 1 || j == m - 1 then g[i, j]
      else 0.25f32 * (g[i - 1, j] + g[i + 1, j] + g[i, j - 1] + g[i, j + 1]))
