-- a chain of four element-wise steps: one loop.
-- ==
-- random input { [1000]f32 }
entry main (xs: []f32) : []f32 =
  xs |> map (+ 1) |> map (* 2) |> map (\x -> x - 3) |> map (/ 4)
