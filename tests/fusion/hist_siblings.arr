-- two histograms over the same indices (counts and sums, as in k-means):
-- one loop computes the indices once and updates both sets of bins.
-- ==
-- input { [0.1f32, 0.5f32, 0.55f32, 0.9f32] }
-- output { [1, 0, 2, 0, 1] [0.1f32, 0.0f32, 1.05f32, 0.0f32, 0.9f32] }
-- random input { [1000]f32 }
entry main (xs: []f32) : ([]i32, []f32) =
  let bins = map (\x -> i64.f32 (x * 5)) xs
  let counts = hist (+) 0 5 bins (replicate (length xs) 1)
  let sums = hist (+) 0f32 5 bins xs
  in (counts, sums)
