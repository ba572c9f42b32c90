entry main (xs: []f64) : f64 =
  xs |> map (\x -> x * x) |> reduce (+) 0
