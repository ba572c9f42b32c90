-- ==
-- random input { [1000]f32 [1000]f32 }
entry main (xs: []f32) (ys: []f32) : f32 =
  reduce (+) 0 (map2 (*) xs ys)
