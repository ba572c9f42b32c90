-- a histogram and a sum of the same mapped values: a hist and a reduction
-- never share a loop nest (one updates bins, the other carries a value);
-- the map is cheap, so each of them computes it again (no array of bins).
-- ==
-- input { [0.1f32, 0.5f32, 0.55f32, 0.9f32] } output { [1, 0, 2, 0, 1] 8i64 }
-- random input { [1000]f32 }
entry main (xs: []f32) : ([]i32, i64) =
  let bins = map (\x -> i64.f32 (x * 5)) xs
  let h = hist (+) 0 5 bins (replicate (length xs) 1)
  let total = reduce (+) 0 bins
  in (h, total)
