-- A size the program computes must not be negative: `replicate`, `hist`'s
-- bins and `unflatten` stop with `negative size N` at the expression (`iota`,
-- `tabulate`: `Range 0..1..<N is invalid`), also where it is fused away.

-- ==
-- entry: replicated
-- input { 2i64 } output { [1, 1] }
-- input { -1i64 } error: ^negative size -1 at .*negative_sizes\.arr:10:37$

entry replicated (n: i64) : []i32 = replicate n 1

-- ==
-- entry: summed_iota
-- input { 4i64 } output { 6i64 }
-- input { 0i64 } output { 0i64 }
-- input { -5i64 } error: ^Range 0\.\.1\.\.<-5 is invalid at .*negative_sizes\.arr:18:50$

entry summed_iota (n: i64) : i64 = reduce (+) 0 (iota n)

-- ==
-- entry: table
-- input { 1i64 2i64 } output { [[0i64, 1i64]] }
-- input { 2i64 -1i64 } error: Range 0\.\.1\.\.<-1 is invalid
-- input { -1i64 2i64 } error: Range 0\.\.1\.\.<-1 is invalid

entry table (n: i64) (m: i64) : [][]i64 = tabulate_2d n m (\i j -> i + j)

-- ==
-- entry: histogram
-- input { 3i64 [1i64, 2i64] } output { [0, 1, 1] }
-- input { -3i64 [1i64, 2i64] } error: negative size -3

entry histogram (n: i64) (xs: []i64) : []i32 = hist (+) 0 n xs (map (\_ -> 1) xs)

-- ==
-- entry: reshaped
-- input { 2i64 2i64 [1, 2, 3, 4] } output { [[1, 2], [3, 4]] }
-- input { -2i64 -2i64 [1, 2, 3, 4] } error: negative size -2

entry reshaped (r: i64) (c: i64) (xs: []i32) : [][]i32 = unflatten r c xs

-- ==
-- entry: per_row
-- input { [3i64, 4i64] } output { [3i64, 6i64] }
-- input { [1i64, -1i64] } error: Range 0\.\.1\.\.<-1 is invalid

entry per_row (xs: []i64) : []i64 = map (\x -> reduce (+) 0 (iota x)) xs
