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
