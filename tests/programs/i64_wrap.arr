-- i64 arithmetic wraps around; unsuffixed literals take the type of the
-- other operand.
-- ==
-- input { 9223372036854775807i64 } output { -9223372036854775808i64 -2i64 }
-- input { 5i64 } output { 6i64 10i64 }

entry main (x: i64) : (i64, i64) =
  (x + 1, x * 2)
