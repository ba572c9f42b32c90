-- map into map: one loop, no intermediate array.
-- ==
-- random input { [1000]f32 }
entry main (xs: []f32) : []f32 =
  map (\y -> y * 2) (map (\x -> x + 1) xs)
