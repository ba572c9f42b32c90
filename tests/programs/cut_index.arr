-- Loops cut where the index plus a shift passes a bound (issue 20,
-- `LoopShape::Cut`): a rotated read's wrap-around and the same test
-- written as an `if` (every comparison, either operand first, two in one
-- body) run as pieces in which the test is known; every shift (0, the
-- length, negative, beyond the length, overflowing) and every length (0,
-- 1, short, long) must give what the interpreter gives.

-- ==
-- entry: rotated
-- input { 0i64 [1, 2, 3, 4, 5] } auto output
-- input { 5i64 [1, 2, 3, 4, 5] } auto output
-- input { 2i64 [1, 2, 3, 4, 5] } auto output
-- input { -2i64 [1, 2, 3, 4, 5] } auto output
-- input { 7i64 [1, 2, 3, 4, 5] } auto output
-- input { 3i64 empty([0]i32) } auto output
-- input { -1i64 [7] } auto output
-- random input { 37i64 [1000]i32 } auto output
-- random input { -999i64 [1000]i32 } auto output

entry rotated (r: i64) (xs: []i32) : []i32 = map2 (+) xs (rotate r xs)

-- ==
-- entry: both
-- input { [1.0f32, 2.0f32, 3.0f32, 4.0f32] } auto output
-- input { [1.0f32] } auto output
-- input { empty([0]f32) } auto output
-- random input { [999]f32 } auto output

entry both (xs: []f32) : []f32 =
  map3 (\x l r -> x + l + r) xs (rotate (-1) xs) (rotate 1 xs)

-- ==
-- entry: spelled
-- input { 2i64 [1, 2, 3, 4, 5] } auto output
-- input { 0i64 [1, 2, 3] } auto output
-- input { 3i64 [1, 2, 3] } auto output
-- input { 1i64 [9] } auto output
-- input { 4i64 empty([0]i32) } auto output
-- random input { 500i64 [1001]i32 } auto output

entry spelled [n] (c: i64) (xs: [n]i32) : [n]i32 =
  map (\i -> let j = i + c in if j >= n then xs[j - n] else xs[j]) (iota n)

-- ==
-- entry: guarded
-- input { 2i64 [1, 2, 3, 4, 5] } auto output
-- input { -2i64 [1, 2, 3, 4, 5] } auto output
-- input { 0i64 [1, 2, 3] } auto output
-- input { 9i64 [1, 2, 3] } auto output
-- input { -9i64 [1, 2, 3] } auto output
-- input { 9223372036854775807i64 [1, 2, 3] } auto output
-- input { -9223372036854775808i64 [1, 2, 3] } auto output
-- input { 1i64 empty([0]i32) } auto output
-- random input { 300i64 [1000]i32 } auto output

entry guarded [n] (c: i64) (xs: [n]i32) : [n]i32 =
  map (\i -> let j = i + c in if n <= j || j < 0 then 0 else xs[j]) (iota n)

-- ==
-- entry: strict
-- input { 1i64 [1, 2, 3, 4] } auto output
-- input { -1i64 [1, 2, 3, 4] } auto output
-- input { 5i64 [1, 2, 3, 4] } auto output
-- input { 1i64 empty([0]i32) } auto output

entry strict [n] (c: i64) (xs: [n]i32) : [n]i32 =
  map (\i -> if 2 < i + c && c <= 4 then xs[i] * 10 else xs[i]) (iota n)
