-- Operator precedence and associativity from section 1.

-- ==
-- entry: arith
-- input { 2 3 } output { -4 14 512 -4 1 }

-- `-a ** 2` is `-(a ** 2)`; `*` binds tighter than `+`; `**` is right
-- associative (2 ** 3 ** 2 = 2 ** 9); `-` is left associative.
entry arith (a: i32) (b: i32) : (i32, i32, i32, i32, i32) =
  (-a ** 2, a + b * 4, a ** b ** 2, a - b - b, 10 - b * b - a + 2)

-- ==
-- entry: bits
-- input { 6 3 } output { 7 10 true 96 }

-- `|` looser than `^` looser than `&` looser than shifts looser than `+`.
-- 6 | 3 & 1 = 6 | 1 = 7; 6 ^ 3 << 2 | 0 = 6 ^ 12 = 10; 6 & 3 == 2 is
-- (6 & 3) == 2; 6 << 3 + 1 >> 0 = 6 << 4 = 96.
entry bits (a: i32) (b: i32) : (i32, i32, bool, i32) =
  (a | b & 1, a ^ b << 2 | 0, a & b == 2, a << b + 1 >> 0)

-- ==
-- entry: logic
-- input { true false } output { true false true }

-- `&&` binds tighter than `||`; comparisons tighter than `&&`.
entry logic (p: bool) (q: bool) : (bool, bool, bool) =
  (p || q && false, (p || q) && q, 1 < 2 && 2 < 3 || q)
