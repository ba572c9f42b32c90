-- scanr op ne xs: at i, xs[i] op (xs[i+1] op (... op xs[n-1])): inclusive,
-- right to left.

-- ==
-- entry: sums
-- input { [1, 2, 3, 4] } output { [10, 9, 7, 4] }
-- input { [5] } output { [5] }
-- input { empty([0]i32) } output { empty([0]i32) }

entry sums (xs: []i32) : []i32 = scanr (+) 0 xs

-- ==
-- entry: digits
-- input { [1, 2, 3] } output { [123, 23, 3] }

-- Concatenating decimal digits, an associative but non-commutative operator
-- on (value, 10^digits) pairs with neutral (0, 1): each suffix as a number.
entry digits (xs: []i32) : []i32 =
  let r = scanr (\(a, pa) (b, pb) -> (a * pb + b, pa * pb)) (0, 1) (map (\x -> (x, 10)) xs)
  in map (\(v, _) -> v) r

-- ==
-- entry: max_suffix
-- input { [3.0f32, 1.0f32, 4.0f32, 1.0f32, 5.0f32, 9.0f32, 2.0f32] }
-- output { [9.0f32, 9.0f32, 9.0f32, 9.0f32, 9.0f32, 9.0f32, 2.0f32] }

entry max_suffix (xs: []f32) : []f32 = scanr f32.max (-f32.inf) xs

-- ==
-- entry: vs_scan
-- input { [1, 2, 3] } output { [6, 5, 3] [1, 3, 6] }

-- scanr is scan of the reversed array, reversed.
entry vs_scan (xs: []i32) : ([]i32, []i32) = (scanr (+) 0 xs, scan (+) 0 xs)
