-- && and || short-circuit: the division is never evaluated when x is 0.
-- ==
-- input { 0 } output { false true true }
-- input { 5 } output { true true false }
-- input { 20 } output { false false false }

entry main (x: i32) : (bool, bool, bool) =
  (x != 0 && 10 / x >= 1, x == 0 || 10 / x >= 1, !(x != 0))
