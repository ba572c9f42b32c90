-- Every integer width, signed and unsigned: + - * wrap around; `/` and `%`
-- round towards negative infinity on signed types (modulo takes the
-- divisor's sign), `//` and `%%` truncate towards zero; lowest / -1 wraps;
-- division by zero is an error for every operator and type. Results are
-- (a + b, a - b, a * b, a / b, a % b, a // b, a %% b).

-- ==
-- entry: ops_i8
-- input { 100i8 100i8 } output { -56i8 0i8 16i8 1i8 0i8 1i8 0i8 }
-- input { -7i8 2i8 } output { -5i8 -9i8 -14i8 -4i8 1i8 -3i8 -1i8 }
-- input { 7i8 -2i8 } output { 5i8 9i8 -14i8 -4i8 -1i8 -3i8 1i8 }
-- input { -128i8 -1i8 } output { 127i8 -127i8 -128i8 -128i8 0i8 -128i8 0i8 }
-- input { -128i8 3i8 } output { -125i8 125i8 -128i8 -43i8 1i8 -42i8 -2i8 }
-- input { 5i8 0i8 } error: division by zero

entry ops_i8 (a: i8) (b: i8) : (i8, i8, i8, i8, i8, i8, i8) =
  (a + b, a - b, a * b, a / b, a % b, a // b, a %% b)

-- ==
-- entry: ops_i16
-- input { 30000i16 30000i16 } output { -5536i16 0i16 -5888i16 1i16 0i16 1i16 0i16 }
-- input { -7i16 2i16 } output { -5i16 -9i16 -14i16 -4i16 1i16 -3i16 -1i16 }
-- input { -32768i16 -1i16 } output { 32767i16 -32767i16 -32768i16 -32768i16 0i16 -32768i16 0i16 }
-- input { -1000i16 7i16 } output { -993i16 -1007i16 -7000i16 -143i16 1i16 -142i16 -6i16 }

entry ops_i16 (a: i16) (b: i16) : (i16, i16, i16, i16, i16, i16, i16) =
  (a + b, a - b, a * b, a / b, a % b, a // b, a %% b)

-- ==
-- entry: ops_i64
-- input { -7i64 2i64 } output { -5i64 -9i64 -14i64 -4i64 1i64 -3i64 -1i64 }
-- input { 9223372036854775807i64 2i64 } output { -9223372036854775807i64 9223372036854775805i64 -2i64 4611686018427387903i64 1i64 4611686018427387903i64 1i64 }
-- input { -9223372036854775808i64 -1i64 } output { 9223372036854775807i64 -9223372036854775807i64 -9223372036854775808i64 -9223372036854775808i64 0i64 -9223372036854775808i64 0i64 }
-- input { -13i64 -4i64 } output { -17i64 -9i64 52i64 3i64 -1i64 3i64 -1i64 }
-- input { -5i64 0i64 } error: division by zero

entry ops_i64 (a: i64) (b: i64) : (i64, i64, i64, i64, i64, i64, i64) =
  (a + b, a - b, a * b, a / b, a % b, a // b, a %% b)

-- ==
-- entry: ops_u8
-- input { 200u8 100u8 } output { 44u8 100u8 32u8 2u8 0u8 2u8 0u8 }
-- input { 7u8 2u8 } output { 9u8 5u8 14u8 3u8 1u8 3u8 1u8 }
-- input { 0u8 1u8 } output { 1u8 255u8 0u8 0u8 0u8 0u8 0u8 }
-- input { 255u8 255u8 } output { 254u8 0u8 1u8 1u8 0u8 1u8 0u8 }
-- input { 5u8 0u8 } error: division by zero

entry ops_u8 (a: u8) (b: u8) : (u8, u8, u8, u8, u8, u8, u8) =
  (a + b, a - b, a * b, a / b, a % b, a // b, a %% b)

-- ==
-- entry: ops_u16
-- input { 65535u16 2u16 } output { 1u16 65533u16 65534u16 32767u16 1u16 32767u16 1u16 }
-- input { 100u16 7u16 } output { 107u16 93u16 700u16 14u16 2u16 14u16 2u16 }

entry ops_u16 (a: u16) (b: u16) : (u16, u16, u16, u16, u16, u16, u16) =
  (a + b, a - b, a * b, a / b, a % b, a // b, a %% b)

-- ==
-- entry: ops_u32
-- input { 4294967295u32 2u32 } output { 1u32 4294967293u32 4294967294u32 2147483647u32 1u32 2147483647u32 1u32 }
-- input { 3u32 5u32 } output { 8u32 4294967294u32 15u32 0u32 3u32 0u32 3u32 }

entry ops_u32 (a: u32) (b: u32) : (u32, u32, u32, u32, u32, u32, u32) =
  (a + b, a - b, a * b, a / b, a % b, a // b, a %% b)

-- ==
-- entry: ops_u64
-- input { 18446744073709551615u64 2u64 } output { 1u64 18446744073709551613u64 18446744073709551614u64 9223372036854775807u64 1u64 9223372036854775807u64 1u64 }
-- input { 10u64 3u64 } output { 13u64 7u64 30u64 3u64 1u64 3u64 1u64 }
-- input { 5u64 0u64 } error: division by zero

entry ops_u64 (a: u64) (b: u64) : (u64, u64, u64, u64, u64, u64, u64) =
  (a + b, a - b, a * b, a / b, a % b, a // b, a %% b)

-- ==
-- entry: zero_div_each
-- input { 7 0 0 } error: division by zero
-- input { 7 0 1 } error: division by zero
-- input { 7 0 2 } error: division by zero
-- input { 7 0 3 } error: division by zero
-- input { 7 2 3 } output { 1 }

-- Each of / % // %% checks for a zero divisor (the operator is chosen at run time).
entry zero_div_each (a: i32) (b: i32) (op: i32) : i32 =
  if op == 0 then a / b else if op == 1 then a % b else if op == 2 then a // b else a %% b

-- ==
-- entry: shifts_i8
-- input { -16i8 2i8 } output { -64i8 -4i8 60i8 -128i8 }
-- input { 5i8 1i8 } output { 10i8 2i8 2i8 -128i8 }

-- `<<`, arithmetic `>>` on signed types, logical `>>>`; 1 << 7 wraps to -128.
entry shifts_i8 (a: i8) (s: i8) : (i8, i8, i8, i8) =
  (a << s, a >> s, a >>> s, 1 << 7)

-- ==
-- entry: shifts_i32
-- input { -8 1 } output { -16 -4 2147483644 }
-- input { -1 28 } output { -268435456 -1 15 }

entry shifts_i32 (a: i32) (s: i32) : (i32, i32, i32) =
  (a << s, a >> s, a >>> s)

-- ==
-- entry: shifts_u8
-- input { 200u8 1u8 } output { 144u8 100u8 100u8 }

-- On unsigned types `>>` is logical too.
entry shifts_u8 (a: u8) (s: u8) : (u8, u8, u8) =
  (a << s, a >> s, a >>> s)

-- ==
-- entry: shifts_i64
-- input { 1i64 62i64 } output { 4611686018427387904i64 0i64 0i64 }
-- input { -9223372036854775808i64 63i64 } output { 0i64 -1i64 1i64 }

entry shifts_i64 (a: i64) (s: i64) : (i64, i64, i64) =
  (a << s, a >> s, a >>> s)

-- ==
-- entry: bitwise
-- input { 12 10 } output { 8 14 6 }
-- input { -1 255 } output { 255 -1 -256 }

entry bitwise (a: i32) (b: i32) : (i32, i32, i32) =
  (a & b, a | b, a ^ b)

-- ==
-- entry: bitwise_u16
-- input { 65535u16 4660u16 } output { 4660u16 65535u16 60875u16 }

entry bitwise_u16 (a: u16) (b: u16) : (u16, u16, u16) =
  (a & b, a | b, a ^ b)

-- ==
-- entry: pow_neg_wrap
-- input { -128i8 3i8 } output { -128i8 -13i8 }
-- input { 5i8 2i8 } output { -5i8 32i8 }

-- Unary minus and integer `**` wrap around (3 ** 5 = 243 wraps to -13).
entry pow_neg_wrap (a: i8) (b: i8) : (i8, i8) =
  (-a, b ** 5)

-- ==
-- entry: pow_wide
-- input { 2 31 } output { -2147483648 -9223372036854775808i64 1 }
-- input { 3 4 } output { 81 -3237885987332494933i64 1 }

entry pow_wide (a: i32) (b: i32) : (i32, i64, i32) =
  (a ** b, i64.i32 a ** 63, 0 ** 0)

-- ==
-- entry: pow_u8
-- input { 2u8 8u8 } output { 0u8 }
-- input { 3u8 5u8 } output { 243u8 }

entry pow_u8 (a: u8) (b: u8) : u8 = a ** b

-- ==
-- entry: compare_u8
-- input { 255u8 1u8 } output { true false }

-- Unsigned comparisons treat the top bit as magnitude.
entry compare_u8 (a: u8) (b: u8) : (bool, bool) = (a > b, a < b)

-- ==
-- entry: compare_u32
-- input { 4294967295u32 0u32 } output { true false }

entry compare_u32 (a: u32) (b: u32) : (bool, bool) = (a > b, a < b)
