-- Idiomatic variants of benches/programs/jacobi.arr (issue 20). `canonical`
-- is the bench program; the others:
--   nested_maps  `map` over `iota n` of `map` over `iota m`
--   flat         one `tabulate` over n*m points, `unflatten`ed
--   interior     only the interior computed, edges by an `if` on a row-map
-- ==
-- entry: canonical nested_maps flat interior
-- input { 1 [[1.0f32, 1.0f32, 1.0f32], [1.0f32, 0.0f32, 1.0f32], [1.0f32, 1.0f32, 1.0f32]] }
-- output { [[1.0f32, 1.0f32, 1.0f32], [1.0f32, 1.0f32, 1.0f32], [1.0f32, 1.0f32, 1.0f32]] }
-- input { 2 [[0.0f32, 4.0f32, 0.0f32, 0.0f32], [0.0f32, 0.0f32, 0.0f32, 8.0f32], [0.0f32, 0.0f32, 0.0f32, 0.0f32], [0.0f32, 0.0f32, 0.0f32, 0.0f32]] }
-- output { [[0.0f32, 4.0f32, 0.0f32, 0.0f32], [0.0f32, 1.5f32, 2.25f32, 8.0f32], [0.0f32, 0.25f32, 0.5f32, 0.0f32], [0.0f32, 0.0f32, 0.0f32, 0.0f32]] }

-- ==
-- entry: canonical nested_maps flat interior
-- random input { 10 [4096][4096]f32 }
-- tags { bench }

entry canonical [n] [m] (sweeps: i32) (g0: [n][m]f32) : [n][m]f32 =
  loop g = g0 for _s < sweeps do
    tabulate_2d n m (\i j ->
      if i == 0 || j == 0 || i == n - 1 || j == m - 1 then g[i, j]
      else 0.25f32 * (g[i - 1, j] + g[i + 1, j] + g[i, j - 1] + g[i, j + 1]))

entry nested_maps [n] [m] (sweeps: i32) (g0: [n][m]f32) : [n][m]f32 =
  loop g = g0 for _s < sweeps do
    map (\i ->
      map (\j ->
        if i == 0 || j == 0 || i == n - 1 || j == m - 1 then g[i, j]
        else 0.25f32 * (g[i - 1, j] + g[i + 1, j] + g[i, j - 1] + g[i, j + 1]))
      (iota m))
    (iota n)

entry flat [n] [m] (sweeps: i32) (g0: [n][m]f32) : [n][m]f32 =
  loop g = g0 for _s < sweeps do
    unflatten n m (tabulate (n * m) (\k ->
      let i = k / m
      let j = k % m
      in if i == 0 || j == 0 || i == n - 1 || j == m - 1 then g[i, j]
         else 0.25f32 * (g[i - 1, j] + g[i + 1, j] + g[i, j - 1] + g[i, j + 1])))

entry interior [n] [m] (sweeps: i32) (g0: [n][m]f32) : [n][m]f32 =
  loop g = g0 for _s < sweeps do
    map (\i ->
      if i == 0 || i == n - 1 then g[i]
      else tabulate m (\j ->
        if j == 0 || j == m - 1 then g[i, j]
        else 0.25f32 * (g[i - 1, j] + g[i + 1, j] + g[i, j - 1] + g[i, j + 1])))
    (iota n)
