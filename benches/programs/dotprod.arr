-- Dot product of two single-precision vectors: the products are taken in
-- f32 and summed in f64 (50 million f32 additions in a row would lose the
-- test tolerance). The map fuses into the reduction: 8 bytes read per
-- element, nothing written.
-- ==
-- input { [1.0f32, 2.0f32, 3.0f32] [4.0f32, 5.0f32, 6.0f32] } output { 32.0 }
-- input { empty([0]f32) empty([0]f32) } output { 0.0 }

-- ==
-- random input { [50000000]f32 [50000000]f32 }
-- tags { bench }
entry main [n] (xs: [n]f32) (ys: [n]f32) : f64 =
  reduce (+) 0.0 (map2 (\x y -> f64.f32 (x * y)) xs ys)
