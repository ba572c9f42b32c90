-- Literal types come from context: a later use, a suffix, or the default.
-- ==
-- input { 10i64 } output { 13i64 3 2.5f64 255 true }

entry main (n: i64) : (i64, i32, f64, i32, bool) =
  let k = 3
  let m = n + k
  let d = 3
  let f = 2.5
  in (m, d, f, 0xff, 0b101 == 5)

-- Hexadecimal and binary literals are bit patterns: they may fill a signed
-- type's width, as Futhark's parser allows (decimal ones may not).
-- ==
-- entry: bit_patterns
-- input { 3 } output { -1i8 -128i8 -626627285 -1i64 -128i8 }
entry bit_patterns (x: i32) =
  (0xFFi8, 0b10000000i8, x * 0x9E3779B9, 0xFFFFFFFFFFFFFFFFi64, -0x80i8)

-- Futhark's hexadecimal floats `0xH.HpE`: hexadecimal digits, a fraction
-- and a binary exponent, both required; a float suffix may follow.
-- ==
-- entry: hex_floats
-- input { 1.0f64 } output { 3.0f64 0.0625f32 -2.5f64 1024.0f64 255.5f64 0.1f32 }
entry hex_floats (one: f64) : (f64, f32, f64, f64, f64, f32) =
  (0x1.8p1 * one, 0x1.0p-4f32, -0x1.4P+1, 0x1.0p10f64, 0xF_F.8p0, 0x1.99999Ap-4f32)
