-- Futhark's scalar-module members at the edges of their domains: each
-- expected value worked out from the member's definition in Futhark's
-- prelude (math.fut), e.g. `set_bit bit x b = (x & !(1 << bit)) | (b << bit)`
-- with `b` not masked to one bit.

-- ==
-- entry: bits
-- input { 0 -1 2 }
-- output { 2 8 -2 -128i8 128u8 1099511627776i64 -9223372036854775808i64
--          1 1 0 4u32 1 }

entry bits (zero: i32) (minus_one: i32) (two: i32) =
  ( i32.set_bit 0 zero two
  , i32.set_bit 3 zero 1
  , i32.set_bit 0 minus_one 0
  , i8.set_bit 7 (i8.i32 zero) 1
  , u8.set_bit 7 (u8.i32 zero) 1
  , i64.set_bit 40 (i64.i32 zero) 1
  , i64.set_bit 63 (i64.i32 zero) 1
  , i32.get_bit 31 minus_one
  , u64.get_bit 63 (u64.i32 minus_one)
  , i32.get_bit 5 zero
  , f32.to_bits (f32.set_bit 1 (f32.i32 zero) two)
  , f64.get_bit 62 (f64.i32 two) )

-- ==
-- entry: ints
-- input { -2147483648 0 -1 }
-- output { -2147483648 -128i8 -1 0 1u32 32 32 16 -1 1u32
--          4611686018427387904i64 40i8 0 255u8 -2147483648 32 16 8 }

entry ints (lowest: i32) (zero: i32) (minus_one: i32) =
  ( i32.abs lowest
  , i8.abs (i8.i32 (lowest >> 24))
  , i32.sgn minus_one
  , i32.sgn zero
  , u32.sgn (u32.i32 minus_one)
  , i32.clz zero
  , i32.ctz zero
  , i16.popc (i16.i32 minus_one)
  , i32.mul_hi minus_one 1
  , u32.mul_hi (u32.i32 minus_one) 2
  , i64.mul_hi (i64.i32 lowest << 32) (i64.i32 lowest << 32)
  , i8.mad_hi (i8.i32 zero + 100) 100 1
  , i32.not minus_one
  , u8.not (u8.i32 zero)
  , i32.neg lowest
  , i32.num_bits
  , u16.num_bits
  , i8.num_bits )

-- ==
-- entry: floats
-- input { 2.5f32 0.5f64 }
-- output { 2f32 -0f32 4f32 -2f32 0f64 0f32 f32.nan -1f32 1075838976u32
--          1f64 1.0000001f32 0.9999999999999999f64 1280f32 0.25f64
--          -2.5f32 24f64 0f64 10f32 10f64 0.25f32 -1.5f64 -2i64
--          true false 0.4f32 2f64 1.75f32 }

entry floats (x: f32) (h: f64) =
  ( f32.round x
  , f32.round (x - 3)
  , f32.round (x + 1)
  , f32.round (-x)
  , f64.round h
  , f32.sgn (-(x - x))
  , f32.sgn f32.nan
  , f32.sgn (-x)
  , f32.to_bits x
  , f64.from_bits 0x3ff0000000000000
  , f32.nextafter (x - 1.5) 2
  , f64.nextafter (h + 0.5) 0
  , f32.ldexp x 9
  , f64.ldexp h (-1)
  , f32.copysign x (-0.0)
  , f64.gamma (h + 4.5)
  , f64.lgamma (h + 0.5)
  , f32.mad x 3 2.5
  , f64.fma h 11 4.5
  , f32.from_fraction 1 4
  , f64.from_fraction (-3) 2
  , f32.to_i64 (-x + 0.2)
  , f32.isinf (-f32.inf)
  , f32.isinf f32.nan
  , f32.recip x
  , f64.rsqrt (h / 2)
  , f32.lerp 1 x 0.5 )
