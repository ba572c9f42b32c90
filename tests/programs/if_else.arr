-- Conditionals as expressions, nested, with let-bound results.
-- ==
-- input { 3 } output { 1 9 }
-- input { -4 } output { -1 16 }
-- input { 0 } output { 0 0 }

def sign (x: i32) : i32 = if x > 0 then 1 else if x < 0 then -1 else 0

entry main (x: i32) : (i32, i32) =
  let s = sign x
  let sq = if s == 0 then 0 else x * x
  in (s, sq)
