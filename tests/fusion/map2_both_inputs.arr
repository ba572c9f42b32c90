-- both inputs of a map2 produced by maps over the same array: one loop.
-- ==
-- random input { [1000]f32 }
entry main (xs: []f32) : []f32 =
  let a = map (\x -> x + 1) xs
  let b = map (\x -> x * 2) xs
  in map2 (*) a b
