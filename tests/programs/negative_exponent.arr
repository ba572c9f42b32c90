-- A signed integer `**` with a negative exponent stops the program with
-- `negative exponent` at the `**` expression, as Futhark's `safety/powneg`
-- does; `x ** 0` is 1 (also `0 ** 0`), and an unsigned exponent is never
-- negative. The first error in sequential order wins, on every backend.

-- ==
-- entry: scalar_i8
-- input { 2i8 -1i8 } error: ^negative exponent at .*negative_exponent\.arr:15:40$
-- input { -128i8 -128i8 } error: ^negative exponent at
-- input { 0i8 0i8 } output { 1i8 }
-- input { -128i8 0i8 } output { 1i8 }
-- input { -2i8 7i8 } output { -128i8 }
-- input { 3i8 127i8 } output { -85i8 }

entry scalar_i8 (a: i8) (b: i8) : i8 = a ** b

-- ==
-- entry: scalar_i16
-- input { 3i16 -32768i16 } error: ^negative exponent at .*negative_exponent\.arr:23:44$
-- input { -32768i16 1i16 } output { -32768i16 }
-- input { 0i16 0i16 } output { 1i16 }

entry scalar_i16 (a: i16) (b: i16) : i16 = a ** b

-- ==
-- entry: constant_in_branch
-- input { false } output { 0 }
-- input { true } error: ^negative exponent at .*negative_exponent\.arr:30:54$

entry constant_in_branch (b: bool) : i32 = if b then 2 ** -1 else 0

-- ==
-- entry: map_section
-- input { 2 [0, 3, 10] } output { [1, 8, 1024] }
-- input { 2 [1, -1] } error: ^negative exponent at .*negative_exponent\.arr:37:54$

entry map_section (b: i32) (xs: []i32) : []i32 = map (b **) xs

-- The pow of element 1 fails before the index of element 2, and the other
-- way round.
-- ==
-- entry: map_first_error
-- input { [2, 3, 4] [0, 2, 3] [0, 1, 2] } output { [1, 9, 64] }
-- input { [2, 3, 4] [1, -1, 2] [0, 1, 5] } error: ^negative exponent at .*negative_exponent\.arr:48:17$
-- input { [2, 3, 4] [1, 2, -2] [0, 7, 1] } error: ^index 7 out of bounds

entry map_first_error (xs: []i32) (es: []i32) (is: []i64) : []i32 =
  map2 (\e i -> xs[i] ** e) es is

-- An operator that is `+` where every partial sum is non-negative
-- (`1 ** s` is 1) and fails on a negative one: an element of -100 makes
-- every partial sum holding it negative, whatever the grouping.
-- ==
-- entry: reduce_operator
-- input { [1i64, 2i64, 3i64, 4i64] } output { 10i64 }
-- input { empty([0]i64) } output { 0i64 }
-- input { [1i64, 2i64, -100i64, 3i64] } error: ^negative exponent at .*negative_exponent\.arr:60:28$

entry reduce_operator (xs: []i64) : i64 =
  reduce (\a b -> a + b + (1 ** (a + b) - 1)) 0 xs

-- ==
-- entry: scalar_i64
-- input { -9223372036854775808i64 0i64 } output { 1i64 }
-- input { 2i64 63i64 } output { -9223372036854775808i64 }
-- input { 1i64 -9223372036854775808i64 } error: ^negative exponent at .*negative_exponent\.arr:68:44$

entry scalar_i64 (a: i64) (b: i64) : i64 = a ** b

-- ==
-- entry: unsigned
-- input { 1u8 255u8 4294967295u32 } output { 1u8 0u32 }
-- input { 3u8 2u8 3u32 } output { 9u8 8u32 }

entry unsigned (a: u8) (b: u8) (c: u32) : (u8, u32) = (a ** b, 2 ** c)
