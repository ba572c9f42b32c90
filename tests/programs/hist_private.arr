-- Histograms of atomic updates over thousands of iterations: on a GPU the
-- bins are privatised in each block's shared memory when they fit (16 KiB)
-- and merged into the global ones with an atomic per bin, else updated in
-- global memory (docs/gpu.md). Both sizes, and a failing gather in the
-- values, must give the sequential results and the first error.

-- ==
-- entry: spread
-- input { 6000i64 16i64 -1i64 } output { 2242i64 2258i64 35998i64 0i32 12i32 }
-- input { 6000i64 5000i64 -1i64 } output { 1i64 9i64 35998i64 7i32 9i32 }
-- input { 6000i64 16i64 4321i64 } error: ^index 99 out of bounds for array of length 13 at .*hist_private\.arr:19:
-- input { 6000i64 5000i64 70i64 } error: ^index 99 out of bounds for array of length 13 at .*hist_private\.arr:19:

-- Sums (i64, 16 or 5000 bins: 128 bytes or 40 KB), minima and maxima
-- (i32) of values gathered from a table, one of them out of bounds.
entry spread (n: i64) (m: i64) (k: i64) : (i64, i64, i64, i32, i32) =
  let tbl = map (\j -> (j * 5) % 13) (iota 13)
  let is = map (\i -> (i * 7919) % m) (iota n)
  let vs = map (\i -> tbl[if i == k then 99 else i % 13]) (iota n)
  let sums = hist (+) 0 m is vs
  let lows = hist i32.min 1000 m is (map i32.i64 vs)
  let highs = hist i32.max (-1) m is (map i32.i64 vs)
  in (sums[0], sums[m - 1], reduce (+) 0 sums, lows[m / 2], highs[m - 1])

-- ==
-- entry: float_bins
-- input { 3i64 [1.0f32, 2.0f32, 4.0f32, -1.0f32] [0.5f64, 1.5f64, -2.0f64, 8.0f64] }
-- output { [2.0f32, 0.0f32, 4.0f32] [1.5f64, 8.5f64, -2.0f64] [2.0f32, 1.0f32, 4.0f32] [1.5f64, 0.5f64, -2.0f64] [2i64, 1i64, 3i64] }
-- random input { 16i64 [5000]f32 [5000]f64 } auto output
-- random input { 300i64 [6000]f32 [6000]f64 } auto output
-- random input { 5000i64 [6000]f32 [6000]f64 } auto output

-- Float bins: sums (one atomic add each, f32 and f64), a maximum and a
-- minimum (compare-and-swap), and integer products (compare-and-swap
-- merges): private below 16 KiB of bins in all (16 and 300 bins), global
-- above (5000).
entry float_bins [n] (m: i64) (xs: [n]f32) (ys: [n]f64) : ([]f32, []f64, []f32, []f64, []i64) =
  let is = map (\i -> (i * 7919 + 1) % m) (iota n)
  let sums = hist (+) 0 m is xs
  let dsums = hist (+) 0 m is ys
  let highs = hist f32.max (-f32.inf) m is xs
  let lows = hist f64.min f64.inf m is ys
  let prods = hist (*) 1 m is (map (\i -> 1 + i % 3) (iota n))
  in (sums, dsums, highs, lows, prods)

-- ==
-- entry: narrow_bins
-- input { 20i64 [1i32, 2i32, 300i32, -7i32, 8i32, 15i32] }
-- output { [1u8, 1u8, 1u8, 0u8, 0u8, 0u8, 0u8, 0u8, 1u8, 0u8, 0u8, 0u8, 0u8, 1u8, 0u8, 1u8, 0u8, 0u8, 0u8, 0u8] [300i16, 1i16, 993i16] [0i8, 1i8, 2i8] }
-- random input { 20i64 [5000]i32 } auto output
-- random input { 9000i64 [6000]i32 } auto output

-- Bins of one and two bytes: counts (u8, wrapping), maxima (i16) and
-- minima (i8), updated by a compare-and-swap of the 32-bit word holding
-- the bin; private below 16 KiB (20 bins), global above (9000 u8 bins
-- and the others).
entry narrow_bins (m: i64) (xs: []i32) : ([]u8, []i16, []i8) =
  let is = map (\x -> i64.i32 x % m) xs
  in (hist (+) 0u8 m is (map (\_ -> 1u8) xs),
      hist i16.max 0i16 3 (map (\x -> i64.i32 (x % 3)) xs) (map (\x -> i16.i32 (x % 1000)) xs),
      hist i8.min 100i8 3 (map (\x -> i64.i32 (x % 3)) xs) (map (\x -> i8.i32 (x % 100)) xs))
