-- a producer read by two consumers, one of them a result: diagonal fusion
-- writes ys once and never recomputes it.
-- ==
-- random input { [1000]f32 }
entry main (xs: []f32) : ([]f32, f32) =
  let ys = map (\x -> x * x) xs
  in (ys, reduce (+) 0 ys)
