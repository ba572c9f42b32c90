-- Dot product: the map fuses into the reduction, so no intermediate array
-- is needed once fusion is on.
-- ==
-- input { [1.0f32, 2.0f32, 3.0f32] [4.0f32, 5.0f32, 6.0f32] } output { 32.0f32 }
-- input { [1, 2, 3] [4, 5, 6] } output { 32f32 }
-- input { empty([0]f32) empty([0]f32) } output { 0.0f32 }
-- input { [1.0f32, 2.0f32] [3.0f32] } error: size mismatch
-- random input { [100000]f32 [100000]f32 }

entry main (xs: []f32) (ys: []f32) : f32 =
  reduce (+) 0 (map2 (*) xs ys)
