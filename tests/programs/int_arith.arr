-- Signed division rounds towards negative infinity; modulo takes the
-- divisor's sign; division by zero is a run-time error.
-- ==
-- input { 7 2 } output { 9 5 14 3 1 }
-- input { -7 2 } output { -5 -9 -14 -4 1 }
-- input { 7 -2 } output { 5 9 -14 -4 -1 }
-- input { -7 -2 } output { -9 -5 14 3 -1 }
-- input { 7 0 } error: division by zero
-- input { 2147483647 1 } output { -2147483648 2147483646 2147483647 2147483647 0 }

entry main (a: i32) (b: i32) : (i32, i32, i32, i32, i32) =
  (a + b, a - b, a * b, a / b, a % b)
