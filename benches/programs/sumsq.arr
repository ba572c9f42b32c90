-- Sum of squares of a single-precision vector, accumulated in f64: one
-- fused pass, 4 bytes read per element.
-- ==
-- input { [1.0f32, 2.0f32, 3.0f32, -4.0f32] } output { 30.0 }
-- input { empty([0]f32) } output { 0.0 }

-- ==
-- random input { [50000000]f32 }
-- tags { bench }
entry main [n] (xs: [n]f32) : f64 =
  reduce (+) 0.0 (map (\x -> let y = f64.f32 x in y * y) xs)
