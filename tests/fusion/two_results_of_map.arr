-- a map with two results consumed by two reductions: one loop.
-- ==
-- random input { [1000]f32 }
entry main (xs: []f32) : (f32, f32) =
  let (a, b) = unzip (map (\x -> (x + 1, x * 2)) xs)
  in (reduce (+) 0 a, reduce (+) 0 b)
