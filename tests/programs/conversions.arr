-- Scalar conversions: float to integer truncates towards zero and saturates.
-- ==
-- input { 2.75f32 -7 } output { 2 2 -7.0f64 -7i64 3.0f32 }
-- input { -2.75f32 100 } output { -2 -3 100.0f64 100i64 -3.0f32 }
-- input { 1e20f32 0 } output { 2147483647 2147483647 0.0f64 0i64 1e20f32 }

entry main (x: f32) (n: i32) : (i32, i32, f64, i64, f32) =
  (i32.f32 x, i32.f32 (f32.floor x), f64.i32 n, i64.i32 n, f32.round x)
