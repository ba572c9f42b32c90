-- let ys = map f xs in map2 g ys ys: f runs once per element.
-- ==
-- random input { [1000]f32 }
entry main (xs: []f32) : []f32 =
  let ys = map (\x -> x + 1) xs
  in map2 (\a b -> a * b) ys ys
