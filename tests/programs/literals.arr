-- Literal types come from context: a later use, a suffix, or the default.
-- ==
-- input { 10i64 } output { 13i64 3 2.5f64 255 true }

entry main (n: i64) : (i64, i32, f64, i32, bool) =
  let k = 3
  let m = n + k
  let d = 3
  let f = 2.5
  in (m, d, f, 0xff, 0b101 == 5)
