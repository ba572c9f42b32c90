-- `f16`, IEEE half precision, end to end: literals, arithmetic rounded to
-- half, conversions, the `f16` module, arrays in both value formats.
-- Expected values computed with numpy's float16.

-- ==
-- input { 1.5f16 [1f16, 2f16, 0.1f16] }
-- output { 2.5f16 4.953f16 1.225f16 [0.3333f16, 0.6665f16, 0.03333f16] 3.25f16 0.2998f16 }
-- input { 1.5 [1, 2, 0.1] }
-- output { 2.5f16 4.953f16 1.225f16 [0.3333f16, 0.6665f16, 0.03333f16] 3.25f16 0.2998f16 }
entry main (x: f16) (xs: []f16) =
  (x + 1, x * 3.3f16, f16.sqrt x, map (\a -> a / 3) xs, f16.fma x x 1, 0.1f16 + 0.2f16)

-- ==
-- entry: conversions
-- input { 3.14159f32 1.5f16 }
-- output { 3.14f16 1.5f32 1i32 f16.inf -7i8 15872u16 1.0f16 true }
entry conversions (y: f32) (x: f16) =
  (f16.f32 y, f32.f16 x, i32.f16 x, f16.i64 70000, i8.f16 (-7.9f16), f16.to_bits x,
   f16.from_bits 0x3c00u16, bool.f16 x)

-- ==
-- entry: module
-- input { 1.5f16 }
-- output { 1.501f16 -6.0e-8f16 1.43e-6f16 3.14f16 f16.inf -f16.inf 1.5f16 2.0f16 false true 2.0f16 1.0e-7f16 }
entry module (x: f16) =
  (f16.nextafter x 10, f16.nextafter 0 (-1), f16.ldexp x (-20), f16.pi, f16.highest,
   f16.lowest, f16.min x 2, f16.max x 2, f16.isnan x, f16.isinf (x / 0), f16.round 2.5,
   f16.epsilon)

-- ==
-- entry: sums
-- input { [0.1f16, 0.1f16, 0.1f16, 0.1f16] }
-- output { 0.4f16 [0.1f16, 0.2f16, 0.2998f16, 0.4f16] }
entry sums (xs: []f16) = (f16.sum xs, scan (+) 0 xs)

-- Element by element, so that every thread count rounds alike (a sum of
-- many halves depends on its order far beyond the test tolerance).
-- ==
-- entry: elementwise
-- random input { [1000]f16 [1000]f16 }
entry elementwise (xs: []f16) (ys: []f16) =
  map2 (\x y -> f16.fma x y (f16.exp x) / (y + 1)) xs ys
