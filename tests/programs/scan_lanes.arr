-- Float scans, whose parallel chunks run in interleaved lanes of 4096-
-- iteration blocks (codegen::cpu::loops, `emit_in_lanes`). The values are
-- small integers, exact in f64 under any association, so the results must
-- match exactly. Sizes cover no lanes at all, lanes with leftover
-- iterations and several blocks per chunk.

-- ==
-- entry: prefix
-- input { 0i64 } output { 0.0 0.0 0.0 }
-- input { 1i64 } output { 0.0 0.0 0.0 }
-- input { 7i64 } output { 21.0 6.0 56.0 }
-- input { 1001i64 } output { 3003.0 1497.0 1500499.0 }
-- input { 70001i64 } output { 210000.0 105000.0 7350035000.0 }

-- The scan is written (it is indexed afterwards) and summed in the same
-- loop as a reduction of its prefix sums.
entry prefix (n: i64) : (f64, f64, f64) =
  let xs = map (\i -> f64.i64 (i % 7)) (iota n)
  let s = scan (+) 0.0 xs
  let total = reduce (+) 0.0 s
  in if n == 0 then (0.0, 0.0, 0.0) else (s[n - 1], s[n / 2], total)

-- ==
-- entry: affine
-- input { 5i64 } output { 1.0 4.0 }
-- input { 4999i64 } output { -1.0 6.0 }
-- input { 50000i64 } output { -1.0 10.0 }

-- Composing affine maps x -> a*x + b is associative but not commutative:
-- lanes must combine in order. Every third map negates.
entry affine (n: i64) : (f64, f64) =
  let fs = map (\i -> (if i % 3 == 0 then -1.0 else 1.0, f64.i64 (i % 5))) (iota n)
  let r = scan (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1.0, 0.0) fs
  let (a, b) = r[n - 1]
  in (a, b)

-- ==
-- entry: suffix_max
-- input { 10i64 } output { 10.0f32 9.0f32 }
-- input { 9000i64 } output { 9000.0f32 8999.0f32 }

-- A right-to-left float scan, read at both ends.
entry suffix_max (n: i64) : (f32, f32) =
  let xs = map (\i -> f32.i64 (n - i)) (iota n)
  let r = scanr f32.max (-f32.inf) xs
  in (r[0], r[1])

-- ==
-- entry: sum_and_count
-- input { 3i64 } output { 3.0f32 3i64 }
-- input { 20000i64 } output { 20000.0f32 20000i64 }

-- A float scan beside an integer reduction and a float reduction.
entry sum_and_count (n: i64) : (f32, i64) =
  let ones = map (\_ -> 1.0f32) (iota n)
  let s = scan (+) 0.0f32 ones
  let last = reduce f32.max 0.0f32 s
  let count = reduce (+) 0 (map (\x -> i64.f32 x - i64.f32 x + 1) s)
  in (last, count)
