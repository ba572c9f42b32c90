-- Half-precision NaN and infinities converted to every integer width:
-- NaN is 0, infinities saturate. LLVM 19's saturating conversion of a half
-- NaN to i16 gave -32768 on x86-64 and nvptx-emu (random seed 1500249);
-- arrc now widens a half to f32 first.
-- ==
-- input { f16.nan } output { 0i8 0i16 0i32 0i64 0u8 0u16 0u32 0u64 }
-- input { -f16.inf } output { -128i8 -32768i16 -2147483648i32 -9223372036854775808i64 0u8 0u16 0u32 0u64 }

entry main (x: f16) : (i8, i16, i32, i64, u8, u16, u32, u64) =
  (i8.f16 x, i16.f16 x, i32.f16 x, i64.f16 x, u8.f16 x, u16.f16 x, u32.f16 x, u64.f16 x)
