entry main (xs: []f32) (ys: []f32) : f32 =
  reduce (+) 0 (map2 (*) xs ys)
