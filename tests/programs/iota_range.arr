-- `iota n` is Futhark's range `0..1..<n` (its prelude's definition), so a
-- negative `n` stops with Futhark's message for that range, `Range
-- 0..1..<n is invalid`, at the `iota`: made, fused into its consumer,
-- per row, through `indices`, `tabulate` and written out as a range.
-- Futhark's `flattening/iota/*` expect it. Other sizes keep `negative
-- size N`.

-- ==
-- entry: made
-- input { 3i64 } output { [0i64, 1i64, 2i64] }
-- input { 0i64 } output { empty([0]i64) }
-- input { -2i64 } error: ^Range 0\.\.1\.\.<-2 is invalid at .*iota_range\.arr:14:31$

entry made (n: i64) : []i64 = iota n

-- ==
-- entry: summed
-- input { 4i64 } output { 6i64 }
-- input { -5i64 } error: ^Range 0\.\.1\.\.<-5 is invalid at .*iota_range\.arr:21:45$

entry summed (n: i64) : i64 = reduce (+) 0 (iota n)

-- ==
-- entry: per_row
-- input { [3i64, 4i64] } output { [3i64, 6i64] }
-- input { [1i64, -1i64] } error: ^Range 0\.\.1\.\.<-1 is invalid at
-- input { empty([0]i64) } output { empty([0]i64) }

entry per_row (xs: []i64) : []i64 = map (\x -> reduce (+) 0 (iota x)) xs

-- ==
-- entry: indexed
-- input { 2i64 1i64 } output { 1i64 }
-- input { -2i64 1i64 } error: ^Range 0\.\.1\.\.<-2 is invalid
-- input { 2i64 5i64 } error: ^index 5 out of bounds for array of length 2

entry indexed (n: i64) (i: i64) : i64 = (iota n)[i]

-- ==
-- entry: tabulated
-- input { 2i64 } output { [0i64, 2i64] }
-- input { -3i64 } error: ^Range 0\.\.1\.\.<-3 is invalid

entry tabulated (n: i64) : []i64 = tabulate n (\i -> i * 2)

-- ==
-- entry: shifted
-- input { 1i64 2i64 } output { [[0i64, 1i64]] }
-- input { 2i64 -3i64 } error: ^Range 0\.\.1\.\.<-3 is invalid
-- input { 0i64 -9i64 } output { empty([0][0]i64) }

entry shifted (n: i64) (k: i64) : [n][]i64 =
  map (\i -> iota (k + i)) (iota n)

-- ==
-- entry: written
-- input { -2i64 } error: ^Range 0\.\.1\.\.<-2 is invalid
-- input { 2i64 } output { [0i64, 1i64] }

entry written (n: i64) : []i64 = 0..1..<n

-- ==
-- entry: replicated
-- input { -4i64 } error: ^negative size -4 at
-- input { 1i64 } output { [7i32] }

entry replicated (n: i64) : []i32 = replicate n 7
