-- `zip3`, then `filter`, then `map`, then `reduce` (issue 20; timed
-- against filtsum.c by run.py).
-- ==
-- input { [1.0f32, 3.0f32, 0.5f32] [2.0f32, 1.0f32, 4.0f32] [10.0f32, 20.0f32, 30.0f32] }
-- output { 31.0f32 }
-- random input { [50]f32 [50]f32 [50]f32 } auto output

-- ==
-- random input { [30000000]f32 [30000000]f32 [30000000]f32 }
-- tags { bench }

entry main [n] (xs: [n]f32) (ys: [n]f32) (zs: [n]f32) : f32 =
  zip3 xs ys zs
  |> filter (\(x, y, _) -> x < y)
  |> map (\(x, y, z) -> x * z + y)
  |> reduce (+) 0
