-- Histograms no single atomic instruction updates: bins of tuples, which
-- must change together, and bins of one byte. On a GPU each update of a
-- tuple holds a lock of its bin, a byte is updated by a compare-and-swap
-- of the 32-bit word holding it (docs/gpu.md, "Kernels"); the operators
-- are commutative, so the order of the updates does not matter.

-- ==
-- entry: argmax_per_bin
-- input { 3i64 [0i64, 1i64, 2i64, 1i64, 0i64, 5i64, 2i64, -1i64] [3i32, 7i32, 1i32, 9i32, 2i32, 4i32, 9i32, 8i32] }
-- output { [3i32, 9i32, 9i32] [0i64, 3i64, 6i64] }
-- input { 2i64 empty([0]i64) empty([0]i32) }
-- output { [-2147483648i32, -2147483648i32] [-1i64, -1i64] }
-- random input { 5i64 [3000]i64 [3000]i32 } auto output

-- The largest value per bin and where it is (the first of equal ones).
def argmax_op (a: i32, ai: i64) (b: i32, bi: i64) : (i32, i64) =
  if a > b then (a, ai)
  else if b > a then (b, bi)
  else if ai < bi then (a, ai)
  else (b, bi)

entry argmax_per_bin (m: i64) (is: []i64) (vs: []i32) : ([]i32, []i64) =
  let is' = map (\i -> if i < 0 then i else i % (m + 1)) is
  in unzip (hist argmax_op (i32.lowest, -1i64) m is' (zip vs (indices vs)))

-- ==
-- entry: byte_counts
-- input { [0i32, 1i32, 1i32, 3i32, 1i32, -4i32] } output { [2i8, 3i8, 0i8, 1i8] }
-- random input { [5000]i32 } auto output

-- Counts in 8 bits (wrapping), 4 bins by the value modulo 4.
entry byte_counts (xs: []i32) : []i8 =
  hist (+) 0i8 4 (map (\x -> i64.i32 (x % 4)) xs) (map (\_ -> 1i8) xs)

-- ==
-- entry: sum_and_count
-- input { [1.5f64, 2.0f64, 4.0f64, 8.5f64] [0i64, 1i64, 0i64, 1i64] }
-- output { [5.5f64, 10.5f64] [2i64, 2i64] }
-- random input { [4000]f64 [4000]i64 } auto output

-- A sum and a count per bin, updated together (a mean's parts).
entry sum_and_count (xs: []f64) (is: []i64) : ([]f64, []i64) =
  let is' = map (\i -> i % 2) is
  in unzip (hist (\(a, n) (b, k) -> (a + b, n + k)) (0f64, 0i64) 2 is' (zip xs (map (\_ -> 1i64) xs)))
