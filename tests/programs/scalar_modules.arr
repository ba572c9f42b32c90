-- Scalar module functions: min max abs highest lowest on every type,
-- popc and clz (returning i32) on integer types.

-- ==
-- entry: minmax_i8
-- input { -5i8 3i8 } output { -5i8 3i8 5i8 127i8 -128i8 }

entry minmax_i8 (a: i8) (b: i8) : (i8, i8, i8, i8, i8) =
  (i8.min a b, i8.max a b, i8.abs a, i8.highest, i8.lowest)

-- ==
-- entry: minmax_i16
-- input { 300i16 -301i16 } output { -301i16 300i16 301i16 32767i16 -32768i16 }

entry minmax_i16 (a: i16) (b: i16) : (i16, i16, i16, i16, i16) =
  (i16.min a b, i16.max a b, i16.abs b, i16.highest, i16.lowest)

-- ==
-- entry: minmax_i32
-- input { -7 -9 } output { -9 -7 9 2147483647 -2147483648 }

entry minmax_i32 (a: i32) (b: i32) : (i32, i32, i32, i32, i32) =
  (i32.min a b, i32.max a b, i32.abs b, i32.highest, i32.lowest)

-- ==
-- entry: minmax_i64
-- input { -1i64 1i64 } output { -1i64 1i64 1i64 9223372036854775807i64 -9223372036854775808i64 }

entry minmax_i64 (a: i64) (b: i64) : (i64, i64, i64, i64, i64) =
  (i64.min a b, i64.max a b, i64.abs a, i64.highest, i64.lowest)

-- ==
-- entry: minmax_unsigned
-- input { 200u8 100u8 } output { 100u8 200u8 200u8 255u8 0u8 65535u16 0u16 4294967295u32 0u32 18446744073709551615u64 0u64 }

-- Unsigned min/max compare as unsigned; abs is the identity.
entry minmax_unsigned (a: u8) (b: u8) : (u8, u8, u8, u8, u8, u16, u16, u32, u32, u64, u64) =
  (u8.min a b, u8.max a b, u8.abs a, u8.highest, u8.lowest, u16.highest, u16.lowest,
   u32.highest, u32.lowest, u64.highest, u64.lowest)

-- ==
-- entry: minmax_float
-- input { -2.5f32 1.5 } output { -2.5f32 1.5f32 2.5f32 -1.5 1.5 1.5 }

entry minmax_float (a: f32) (b: f64) : (f32, f32, f32, f64, f64, f64) =
  (f32.min a 1.5, f32.max a 1.5, f32.abs a, f64.min b (-b), f64.max b (-b), f64.abs (-b))

-- ==
-- entry: popc_clz_i32
-- input { 0 } output { 0 32 }
-- input { 1 } output { 1 31 }
-- input { -1 } output { 32 0 }
-- input { 255 } output { 8 24 }
-- input { -2147483648 } output { 1 0 }

entry popc_clz_i32 (x: i32) : (i32, i32) = (i32.popc x, i32.clz x)

-- ==
-- entry: popc_clz_small
-- input { -1i8 1u8 256i16 } output { 8 7 1 7 }
-- input { 0i8 0u8 0i16 } output { 0 8 0 16 }

-- On narrow types popc and clz count within the type's width and return i32.
entry popc_clz_small (a: i8) (b: u8) (c: i16) : (i32, i32, i32, i32) =
  (i8.popc a, u8.clz b, i16.popc c, i16.clz c)

-- ==
-- entry: popc_clz_64
-- input { -1i64 1u64 } output { 64 0 1 63 }
-- input { 0i64 9223372036854775808u64 } output { 0 64 1 0 }

entry popc_clz_64 (a: i64) (b: u64) : (i32, i32, i32, i32) =
  (i64.popc a, i64.clz a, u64.popc b, u64.clz b)

-- ==
-- entry: popc_clz_u32
-- input { 4294967295u32 } output { 32 0 }
-- input { 65536u32 } output { 1 15 }

entry popc_clz_u32 (a: u32) : (i32, i32) = (u32.popc a, u32.clz a)

-- ==
-- entry: module_fns_as_values
-- input { [3, -1, 2] } output { 3 -1 [3, 1, 2] }

-- Module functions passed to SOACs as values.
entry module_fns_as_values (xs: []i32) : (i32, i32, []i32) =
  (reduce i32.max i32.lowest xs, reduce i32.min i32.highest xs, map i32.abs xs)
