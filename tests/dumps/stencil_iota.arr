-- iota fuses into its readers: the stencil reads xs at i, i+1, i+2.
entry main [n] (xs: [n]f32) : []f32 =
  map (\i -> (xs[i] + xs[i+1] + xs[i+2]) / 3.0f32) (iota (n - 2))
entry jac [n][m] (g: [n][m]f32) : [][]f32 =
  tabulate_2d (n-2) (m-2) (\i j -> 0.25f32 * (g[i, j+1] + g[i+2, j+1] + g[i+1, j] + g[i+1, j+2]))
