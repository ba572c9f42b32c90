-- Histograms whose bins are rows, with an operator that is one atomic
-- instruction on a GPU (integer +, &, |, ^, min, max; float +). Where
-- the bins are too many to copy per chunk, or the iterations too few,
-- a GPU runs a thread per iteration and column, each updating its bin
-- element with one atomic (docs/gpu.md, "Histograms of rows by
-- atomics"); other shapes keep the chunked or the column form.

-- ==
-- entry: sums
-- input { 3i64 empty([0]i64) empty([0][2]i64) } output { [[0i64, 0i64], [0i64, 0i64], [0i64, 0i64]] }
-- input { 0i64 [1i64, 2i64] [[1i64, 2i64], [3i64, 4i64]] } output { empty([0][2]i64) }
-- input { 2i64 [1i64] [[5i64, 6i64, 7i64]] } output { [[5i64, 6i64, 7i64], [0i64, 0i64, 0i64]] }
-- input { 2i64 [1i64, 1i64, 0i64, 5i64] [[5i64, 6i64], [1i64, 2i64], [3i64, 3i64], [9i64, 9i64]] } output { [[15i64, 17i64], [0i64, 0i64]] }
-- random input { 2000i64 [3000]i64 [3000][3]i64 } auto output
-- random input { 500i64 [300]i64 [300][45]i64 } auto output
-- random input { 7i64 [30]i64 [30][4]i64 } auto output
-- random input { 4i64 [40]i64 [40][0]i64 } auto output
-- random input { 10i64 [5000]i64 [5000][3]i64 } auto output

-- Indices outside the bins (negative ones, and those at or past k) are
-- skipped.
entry sums [n][m] (k: i64) (is: [n]i64) (xss: [n][m]i64) : [k][m]i64 =
  reduce_by_index (replicate k (replicate m 0)) (map2 (+)) (replicate m 0)
    (map (\i -> i % (k + 2) - 1) is) xss

-- ==
-- entry: narrow
-- random input { 3000i64 [4000]i64 [4000][5]i32 } auto output
-- random input { 9i64 [25]i64 [25][3]i32 } auto output

-- Sums of i32 and counts of u8 (1-byte bins: a compare-and-swap of the
-- word holding them), and maxima of u32, into one bin matrix each.
entry narrow [n][m] (k: i64) (is: [n]i64) (xss: [n][m]i32) : ([k][m]i32, [k][m]u8, [k][m]u32) =
  let is = map (\i -> i % k) is
  in ( hist (map2 (+)) (replicate m 0) k is xss
     , hist (map2 (+)) (replicate m 0) k is (map (map (\x -> u8.i32 (x & 1))) xss)
     , hist (map2 u32.max) (replicate m 0) k is (map (map u32.i32) xss) )

-- ==
-- entry: bits
-- random input { [2500][3]i64 [3000]i64 [3000][3]i64 } auto output
-- random input { [6][4]i64 [20]i64 [20][4]i64 } auto output

-- Minima, and, or and xor into a destination that is not the neutral
-- element: its rows take part.
entry bits [k][n][m] (dest: [k][m]i64) (is: [n]i64) (xss: [n][m]i64) : ([k][m]i64, [k][m]i64, [k][m]i64, [k][m]i64) =
  let is = map (\i -> i % k) is
  in ( reduce_by_index (copy dest) (map2 i64.min) (replicate m i64.highest) is xss
     , reduce_by_index (copy dest) (map2 (&)) (replicate m (-1)) is xss
     , reduce_by_index (copy dest) (map2 (|)) (replicate m 0) is xss
     , reduce_by_index (copy dest) (map2 (^)) (replicate m 0) is xss )

-- ==
-- entry: floats
-- random input { 2000i64 [3000]i64 [3000][3]i64 } auto output
-- random input { 5i64 [30]i64 [30][2]i64 } auto output

-- f32 and f64 sums (atom.add.f32/.f64) of whole numbers, which every
-- order of the additions gives exactly; an f32 maximum (no atomic: the
-- column form) beside them.
entry floats [n][m] (k: i64) (is: [n]i64) (xss: [n][m]i64) : ([k][m]f32, [k][m]f64, [k][m]f32) =
  let is = map (\i -> i % k) is
  let fs = map (map (\x -> f32.i64 (x % 100))) xss
  in ( hist (map2 (+)) (replicate m 0) k is fs
     , hist (map2 (+)) (replicate m 0) k is (map (map f64.f32) fs)
     , hist (map2 f32.max) (replicate m f32.lowest) k is fs )

-- ==
-- entry: fixed
-- random input { 3000i64 [4000]i64 [4000][4]i32 } auto output
-- random input { 7i64 [30]i64 [30][4]i32 } auto output
-- random input { 7i64 [5000]i64 [5000][4]i32 } auto output
-- input { 2i64 [1i64] [[1i32, 2i32, 3i32, 4i32]] } output { [[0i32, 0i32, 0i32, 0i32], [1i32, 2i32, 3i32, 4i32]] [[-2147483648i32, -2147483648i32, -2147483648i32, -2147483648i32], [1i32, 2i32, 3i32, 4i32]] }

-- A constant width (the inner map unrolled, no column form): a thread
-- per iteration, an atomic per element; sums and maxima.
entry fixed [n] (k: i64) (is: [n]i64) (xss: [n][4]i32) : ([k][4]i32, [k][4]i32) =
  let is = map (\i -> i % k) is
  in ( hist (map2 (+)) (replicate 4 0) k is xss
     , hist (map2 i32.max) (replicate 4 i32.lowest) k is xss )

-- ==
-- entry: fails
-- input { 60i64 -1i64 -1i64 [0i64, 1i64, 2i64] } output { [[870i64, 900i64, 930i64], [900i64, 930i64, 960i64]] }
-- input { 60i64 40i64 -1i64 [0i64, 1i64, 2i64] } error: ^index 50 out of bounds for array of length 10 at .*hist_atomic\.arr:98:
-- input { 60i64 -1i64 30i64 [0i64, 1i64, 2i64] } error: ^division by zero at .*hist_atomic\.arr:99:
-- input { 60i64 40i64 30i64 [0i64, 1i64, 2i64] } error: ^division by zero at .*hist_atomic\.arr:99:
-- input { 60i64 30i64 40i64 [0i64, 1i64, 2i64] } error: ^index 40 out of bounds for array of length 10 at .*hist_atomic\.arr:98:
-- input { 60i64 59i64 58i64 [0i64, 1i64, 2i64] } error: ^division by zero at .*hist_atomic\.arr:99:
-- input { 60i64 0i64 1i64 [0i64, 1i64, 2i64] } error: ^index 10 out of bounds for array of length 10 at .*hist_atomic\.arr:98:

-- Checks in the rows' map before the histogram (fusion keeps it apart):
-- the earliest wins; the histogram itself has a dynamic width, so its
-- atomic form runs when the rows are valid.
entry fails [m] (n: i64) (bad_index: i64) (bad_div: i64) (ws: [m]i64) : [2][m]i64 =
  let table = iota 10
  in reduce_by_index (replicate 2 (replicate m 0)) (map2 (+)) (replicate m 0) (map (% 2) (iota n))
       (map (\i -> map (\w -> if i == bad_index then table[i + 10 + w]
                              else if i == bad_div then i / (w - w)
                              else i + w) ws) (iota n))
