-- A vector-matrix product by `transpose`: one dot product per column
-- (issue 20; timed against vecmat.c by run.py).
-- ==
-- input { [[1.0f32, 2.0f32], [3.0f32, 4.0f32], [5.0f32, 6.0f32]] [1.0f32, 0.5f32, 2.0f32] }
-- output { [12.5f32, 16.0f32] }
-- random input { [9][5]f32 [9]f32 } auto output

-- ==
-- random input { [8192][8192]f32 [8192]f32 }
-- tags { bench }

entry main [n] [m] (a: [n][m]f32) (v: [n]f32) : [m]f32 =
  map (\col -> f32.sum (map2 (*) col v)) (transpose a)
