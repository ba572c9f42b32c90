-- Softmax of every row, the way a Futhark user writes it (issue 20;
-- timed against softmax.c by run.py).
-- ==
-- input { [[1.0f32, 2.0f32, 3.0f32], [0.0f32, 0.0f32, -1.0f32]] }
-- auto output
-- random input { [7][13]f32 } auto output

-- ==
-- random input { [2000][15000]f32 }
-- tags { bench }

entry main [n] [m] (xss: [n][m]f32) : [n][m]f32 =
  map (\row ->
         let mx = f32.maximum row
         let es = map (\x -> f32.exp (x - mx)) row
         let s = f32.sum es
         in map (/ s) es)
      xss
