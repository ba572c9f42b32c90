-- ==
-- random input { [1000]f64 }
entry main (xs: []f64) : f64 =
  xs |> map (\x -> x * x) |> reduce (+) 0
