-- a chain of four element-wise steps: one loop.
entry main (xs: []f32) : []f32 =
  xs |> map (+ 1) |> map (* 2) |> map (\x -> x - 3) |> map (/ 4)
