-- three maps reading the same array, each result returned: one loop with
-- one read of xs and three writes.
-- ==
-- random input { [1000]f32 }
entry main (xs: []f32) : ([]f32, []f32, []f32) =
  (map (+ 1) xs, map (* 2) xs, map (\x -> x - 3) xs)
