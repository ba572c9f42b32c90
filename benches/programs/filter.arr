-- Keeps the elements above 0.5, in order (about half of uniform input).
-- ==
-- input { [0.1f32, 0.7f32, 0.5f32, 0.9f32, 0.2f32] } output { [0.7f32, 0.9f32] }
-- input { [0.1f32] } output { empty([0]f32) }

-- ==
-- random input { [50000000]f32 }
-- tags { bench }
entry main [n] (xs: [n]f32) : []f32 =
  filter (\x -> x > 0.5f32) xs
