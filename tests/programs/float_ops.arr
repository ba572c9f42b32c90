-- f32 and f64 arithmetic, negation and comparisons.
-- ==
-- input { 1.5f32 2.0f64 } output { 3.0f32 -1.5f32 0.75f32 4.0f64 true false }
-- input { -0.5f32 0.25f64 } output { -1.0f32 0.5f32 -0.25f32 0.0625f64 false true }

entry main (x: f32) (y: f64) : (f32, f32, f32, f64, bool, bool) =
  (x + x, -x, x / 2, y * y, x > 1, y < 1)
