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
