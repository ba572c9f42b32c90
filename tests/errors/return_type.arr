entry main (xs: []f32) : f32 =
  map (\x -> x + 1) xs
