-- A nest over an inner search (an `argmin` per point) runs several points
-- per iteration (`loopy::jam`): any number of points (the last block
-- partly past the end, or none at all), ties to the first centre, the
-- histograms fused behind it, and the first error still the first
-- point's.
-- ==
-- input { [0.0f32, 10.0f32, 1.0f32, 9.0f32, 0.0f32, 5.2f32, 4.9f32, 20.0f32, -3.0f32, 2.5f32, 7.5f32]
--         [0.0f32, 5.0f32, 10.0f32] }
-- output { [0i64, 2i64, 0i64, 2i64, 0i64, 1i64, 1i64, 2i64, 0i64, 0i64, 1i64] }
-- input { [1.0f32, 2.0f32, 3.0f32] [2.0f32] } output { [0i64, 0i64, 0i64] }
-- input { empty([0]f32) [1.0f32] } output { empty([0]i64) }
-- input { [1.0f32, 2.0f32] empty([0]f32) } output { [-1i64, -1i64] }
entry main (xs: []f32) (cs: []f32) : []i64 =
  map (\x -> argmin (map (\c -> (x - c) * (x - c)) cs)) xs

-- ==
-- entry: counts
-- input { [0.0f32, 10.0f32, 1.0f32, 9.0f32, 0.0f32, 5.2f32, 4.9f32, 20.0f32, -3.0f32, 2.5f32, 7.5f32]
--         [0.0f32, 5.0f32, 10.0f32] }
-- output { [5i64, 3i64, 3i64] [0.5f32, 17.6f32, 39.0f32] }
-- input { [3.0f32, 1.0f32, 4.0f32, 1.0f32, 5.0f32, 9.0f32, 2.0f32, 6.0f32, 5.0f32]
--         [1.0f32, 4.0f32, 6.0f32, 8.0f32] }
-- output { [3i64, 4i64, 1i64, 1i64] [4.0f32, 17.0f32, 6.0f32, 9.0f32] }
entry counts [k] (xs: []f32) (cs: [k]f32) : ([k]i64, [k]f32) =
  let labels = map (\x -> argmin (map (\c -> f32.abs (x - c)) cs)) xs
  in (hist (+) 0 k labels (map (\_ -> 1i64) xs), hist (+) 0f32 k labels xs)

-- Each point looks up `tags[3 i + label]`: with 9 tags, point 3 is the
-- first out of range (index 9 + its label), whatever the later points
-- would report.
-- ==
-- entry: lookup
-- input { [0.0f32, 10.0f32, 1.0f32, 9.0f32, 0.0f32, 5.2f32, 4.9f32, 20.0f32, -3.0f32]
--         [0.0f32, 5.0f32, 10.0f32] [0i64, 1i64, 2i64, 3i64, 4i64, 5i64, 6i64, 7i64, 8i64] }
-- error: index 11 out of bounds
-- input { [0.0f32, 10.0f32] [0.0f32, 5.0f32, 10.0f32] [0i64, 1i64, 2i64, 3i64, 4i64, 5i64] }
-- output { [0i64, 5i64] }
entry lookup [n] (xs: [n]f32) (cs: []f32) (tags: []i64) : [n]i64 =
  map2 (\i x -> tags[3 * i + argmin (map (\c -> (x - c) * (x - c)) cs)]) (iota n) xs
