-- map into reduce (redomap): one loop, no intermediate array.
-- ==
-- random input { [1000]f32 }
entry main (xs: []f32) : f32 =
  reduce (+) 0 (map (\x -> x * x) xs)
