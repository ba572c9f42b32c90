-- The textual value format on input: hex and binary literals, underscores,
-- comments between values, `empty(...)`, infinities and NaN, and unsuffixed
-- values typed by the entry's parameters.

-- ==
-- entry: ints
-- input { 0x2A 0b101 1_000_000 } output { 42 5 1000000 }
-- input { -- a comment inside the input
--   0xff 0b0 -- and another
--   -12 } output { 255 0 -12 }
-- input { 42i32 5i32 7i32 } output { 42 5 7 }

entry ints (a: i32) (b: i32) (c: i32) : (i32, i32, i32) = (a, b, c)

-- ==
-- entry: typed_by_entry
-- input { 200 60000 3000000000 -5 } output { 200u8 60000u16 3000000000u32 -5i64 }
-- input { 0xFF 0xFFFF 0xFFFFFFFF 0x10 } output { 255u8 65535u16 4294967295u32 16i64 }

-- Unsuffixed values take the parameter's type, so 200 fits in u8.
entry typed_by_entry (a: u8) (b: u16) (c: u32) (d: i64) : (u8, u16, u32, i64) = (a, b, c, d)

-- ==
-- entry: floats
-- input { 1 2.5 1e-3 -0.5e2 } output { 1.0f32 2.5 0.001f32 -50.0 }
-- input { f32.inf -f64.inf 3 4 } output { f32.inf -f64.inf 3.0f32 4.0 }
-- input { f32.nan f64.nan 1_0.5 2.5f64 } output { f32.nan f64.nan 10.5f32 2.5 }

-- An integer-looking value is accepted for a float parameter.
entry floats (a: f32) (b: f64) (c: f32) (d: f64) : (f32, f64, f32, f64) = (a, b, c, d)

-- ==
-- entry: arrays
-- input { [0x1, 0b10, 3_0] [[1.5, 2], [3, 4e0]] } output { [1i64, 2i64, 30i64] [[1.5f32, 2.0f32], [3.0f32, 4.0f32]] }
-- input { empty([0]i64) empty([0][2]f32) } output { empty([0]i64) empty([0][2]f32) }
-- input { [ 1 , 2 ] [ [ 1 , 2 ] ] } output { [1i64, 2i64] [[1.0f32, 2.0f32]] }

entry arrays (xs: []i64) (m: [][]f32) : ([]i64, [][]f32) = (xs, m)

-- ==
-- entry: bools
-- input { [true, false] true } output { [true, false] true }

entry bools (bs: []bool) (b: bool) : ([]bool, bool) = (bs, b)

-- ==
-- entry: bad
-- input { 256 } error: argument 1
-- input { -1 } error: argument 1
-- input { 1.5 } error: argument 1
-- input { 1i32 } error: argument 1
-- input { } error: argument 1
-- input { [1] } error: argument 1

-- Input that does not fit the entry point: out of range, wrong type, a
-- suffix that disagrees, a missing argument, an array for a scalar.
entry bad (x: u8) : u8 = x

-- ==
-- entry: bad_second
-- input { [1] true } error: argument 2
-- input { [1] [[1, 2]] } error: argument 2
-- input { [1, 2] [1, 2, 3] } error: argument 2

-- Size parameters must agree between arguments.
entry bad_second [n] (xs: [n]i32) (ys: [n]i32) : i32 = reduce (+) 0 (map2 (+) xs ys)

-- ==
-- entry: negative_literals
-- input { -128 -32768 -9223372036854775808 } output { -128i8 -32768i16 -9223372036854775808i64 }

entry negative_literals (a: i8) (b: i16) (c: i64) : (i8, i16, i64) = (a, b, c)
