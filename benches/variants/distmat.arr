-- The distance matrix of points in the plane by `tabulate_2d` (issue 20;
-- timed against distmat.c by run.py).
-- ==
-- input { [0.0f32, 3.0f32] [0.0f32, 4.0f32] }
-- output { [[0.0f32, 5.0f32], [5.0f32, 0.0f32]] }
-- random input { [11]f32 [11]f32 } auto output

-- ==
-- random input { [8000]f32 [8000]f32 }
-- tags { bench }

entry main [n] (xs: [n]f32) (ys: [n]f32) : [n][n]f32 =
  tabulate_2d n n (\i j ->
    f32.sqrt ((xs[i] - xs[j]) * (xs[i] - xs[j]) + (ys[i] - ys[j]) * (ys[i] - ys[j])))
