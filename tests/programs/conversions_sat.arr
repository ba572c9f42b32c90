-- Section 10 conversions: float to integer truncates towards zero,
-- saturates at the target's range and maps NaN to 0; integer to integer
-- keeps the low bits, sign-extending signed sources; bool converts to and
-- from every type (true is 1).

-- ==
-- entry: float_to_int
-- input { 2.9f32 } output { 2i8 2u8 2i16 2u16 2 2u32 2i64 2u64 }
-- input { -2.9f32 } output { -2i8 0u8 -2i16 0u16 -2 0u32 -2i64 0u64 }
-- input { 1e10f32 } output { 127i8 255u8 32767i16 65535u16 2147483647 4294967295u32 10000000000i64 10000000000u64 }
-- input { -1e10f32 } output { -128i8 0u8 -32768i16 0u16 -2147483648 0u32 -10000000000i64 0u64 }
-- input { f32.nan } output { 0i8 0u8 0i16 0u16 0 0u32 0i64 0u64 }
-- input { f32.inf } output { 127i8 255u8 32767i16 65535u16 2147483647 4294967295u32 9223372036854775807i64 18446744073709551615u64 }
-- input { -f32.inf } output { -128i8 0u8 -32768i16 0u16 -2147483648 0u32 -9223372036854775808i64 0u64 }
-- input { 300.5f32 } output { 127i8 255u8 300i16 300u16 300 300u32 300i64 300u64 }

entry float_to_int (x: f32) : (i8, u8, i16, u16, i32, u32, i64, u64) =
  (i8.f32 x, u8.f32 x, i16.f32 x, u16.f32 x, i32.f32 x, u32.f32 x, i64.f32 x, u64.f32 x)

-- ==
-- entry: f64_to_int
-- input { 1e30 } output { 2147483647 9223372036854775807i64 18446744073709551615u64 }
-- input { -1e30 } output { -2147483648 -9223372036854775808i64 0u64 }
-- input { f64.nan } output { 0 0i64 0u64 }
-- input { -0.99 } output { 0 0i64 0u64 }
-- input { 2147483647.9 } output { 2147483647 2147483647i64 2147483647u64 }

entry f64_to_int (x: f64) : (i32, i64, u64) = (i32.f64 x, i64.f64 x, u64.f64 x)

-- ==
-- entry: narrowing
-- input { 300 } output { 44i8 44u8 300i16 300u16 }
-- input { -1 } output { -1i8 255u8 -1i16 65535u16 }
-- input { 65536 } output { 0i8 0u8 0i16 0u16 }
-- input { 128 } output { -128i8 128u8 128i16 128u16 }

-- Integer to a narrower integer keeps the low bits.
entry narrowing (x: i32) : (i8, u8, i16, u16) = (i8.i32 x, u8.i32 x, i16.i32 x, u16.i32 x)

-- ==
-- entry: widening_signed
-- input { -1i8 } output { -1 4294967295u32 -1i64 18446744073709551615u64 65535u16 }
-- input { -128i8 } output { -128 4294967168u32 -128i64 18446744073709551488u64 65408u16 }
-- input { 127i8 } output { 127 127u32 127i64 127u64 127u16 }

-- A signed source is sign-extended, also into unsigned targets.
entry widening_signed (x: i8) : (i32, u32, i64, u64, u16) =
  (i32.i8 x, u32.i8 x, i64.i8 x, u64.i8 x, u16.i8 x)

-- ==
-- entry: widening_unsigned
-- input { 255u8 } output { 255 255i64 -1i8 255i16 }
-- input { 128u8 } output { 128 128i64 -128i8 128i16 }

-- An unsigned source is zero-extended.
entry widening_unsigned (x: u8) : (i32, i64, i8, i16) = (i32.u8 x, i64.u8 x, i8.u8 x, i16.u8 x)

-- ==
-- entry: u64_to_signed
-- input { 18446744073709551615u64 } output { -1i64 -1 4294967295u32 1.8446744073709552e19 }

entry u64_to_signed (x: u64) : (i64, i32, u32, f64) = (i64.u64 x, i32.u64 x, u32.u64 x, f64.u64 x)

-- ==
-- entry: int_to_float
-- input { -3i64 } output { -3.0f32 -3.0 }
-- input { 16777217i64 } output { 16777216.0f32 16777217.0 }

entry int_to_float (x: i64) : (f32, f64) = (f32.i64 x, f64.i64 x)

-- ==
-- entry: unsigned_to_float
-- input { 4294967295u32 } output { 4294967295.0 4.2949673e9f32 }

-- An unsigned source converts by its unsigned value.
entry unsigned_to_float (x: u32) : (f64, f32) = (f64.u32 x, f32.u32 x)

-- ==
-- entry: from_bool
-- input { true } output { 1i8 1u8 1 1i64 1u64 1.0f32 1.0 true }
-- input { false } output { 0i8 0u8 0 0i64 0u64 0.0f32 0.0 false }

entry from_bool (b: bool) : (i8, u8, i32, i64, u64, f32, f64, bool) =
  (i8.bool b, u8.bool b, i32.bool b, i64.bool b, u64.bool b, f32.bool b, f64.bool b, bool.bool b)

-- ==
-- entry: to_bool
-- input { 0 0.0f32 0u8 } output { false false false }
-- input { -5 0.25f32 255u8 } output { true true true }

-- Any non-zero value converts to true.
entry to_bool (x: i32) (y: f32) (z: u8) : (bool, bool, bool) =
  (bool.i32 x, bool.f32 y, bool.u8 z)

-- ==
-- entry: float_float
-- input { 1e300 } output { f32.inf 1e300 }
-- input { 0.1 } output { 0.1f32 0.1 }

-- f64 to f32 overflows to infinity; f32 of a small value rounds.
entry float_float (x: f64) : (f32, f64) = (f32.f64 x, f64.f64 x)

-- ==
-- entry: f32_to_i64_exact
-- input { 9.3e18f32 } output { 9223372036854775807i64 9300000300729368576u64 }

-- Just above i64's range: saturates in i64; u64 gets the f32 value exactly
-- (9.3e18f32 is 9300000300729368576).
entry f32_to_i64_exact (x: f32) : (i64, u64) = (i64.f32 x, u64.f32 x)
