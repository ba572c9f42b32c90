-- a histogram of mapped bin indices: the map is fused into the hist's loop,
-- so the indices never reach memory.
-- ==
-- input { [0.1f32, 0.5f32, 0.55f32, 0.9f32] } output { [1, 0, 2, 0, 1] }
-- random input { [1000]f32 }
entry main (xs: []f32) : []i32 =
  let bins = map (\x -> i64.f32 (x * 5)) xs
  in hist (+) 0 5 bins (replicate (length xs) 1)
