-- Histograms of tuples of bins (updated under a lock per bin) whose bins
-- and locks fit a block's shared memory: on a GPU each block updates its
-- own copy under shared locks and merges the bins it changed into the
-- global ones under their locks (docs/gpu.md, "Private histogram bins").
-- Few bins (private), many (global), bins that start away from the
-- neutral element, and operators that fail, of tuples and of one bin.

-- ==
-- entry: argmin_per_bin
-- input { 3i64 [0i64, 1i64, 2i64, 1i64, 0i64, 5i64, 2i64, -1i64] [3i32, 7i32, 1i32, 9i32, 2i32, 4i32, 1i32, 8i32] }
-- output { [2i32, 4i32, 1i32] [4i64, 5i64, 2i64] }
-- random input { 7i64 [5000]i64 [5000]i32 } auto output
-- random input { 300i64 [5000]i64 [5000]i32 } auto output
-- random input { 3000i64 [5000]i64 [5000]i32 } auto output

-- The smallest value per bin and where it is (the first of equal ones).
def argmin_op (a: i32, ai: i64) (b: i32, bi: i64) : (i32, i64) =
  if a < b then (a, ai)
  else if b < a then (b, bi)
  else if ai < bi then (a, ai)
  else (b, bi)

entry argmin_per_bin (m: i64) (is: []i64) (vs: []i32) : ([]i32, []i64) =
  let is' = map (\i -> if i < 0 then i else i % (m + 1)) is
  in unzip (hist argmin_op (i32.highest, -1i64) m is' (zip vs (indices vs)))

-- ==
-- entry: sums_into
-- input { [1.5f64, 2.0f64, 4.0f64, 8.5f64] [0i64, 1i64, 0i64, 1i64] }
-- output { [105.5f64, 10.5f64, 0.0f64] [3i64, 2i64, 0i64] }
-- random input { [4000]f64 [4000]i64 } auto output

-- A sum and a count per bin, into bins that start at (100, 1) and (0, 0).
entry sums_into (xs: []f64) (is: []i64) : ([]f64, []i64) =
  let is' = map (\i -> i % 3) is
  let (s0, c0) = ([100f64, 0f64, 0f64], [1i64, 0i64, 0i64])
  in unzip (reduce_by_index (zip s0 c0) (\(a, n) (b, k) -> (a + b, n + k)) (0f64, 0i64) is'
                            (zip xs (map (\_ -> 1i64) xs)))

-- ==
-- entry: capped
-- input { 10i64 [1i32, 2i32, 3i32, 4i32] [0i64, 1i64, 0i64, 1i64] } output { [4i32, 6i32] [2i64, 2i64] }
-- input { 1i64 [1i32, 2i32, 3i32, 4i32] [0i64, 1i64, 0i64, 1i64] } error: ^assertion failed at .*hist_private_locked\.arr:52:
-- random input { 100000i64 [5000]i32 [5000]i64 } auto output
-- random input { 100i64 [5000]i32 [5000]i64 } error: ^assertion failed at .*hist_private_locked\.arr:52:

-- A sum and a count per bin whose operator fails once a bin counts more
-- than `cap` elements.
entry capped (cap: i64) (xs: []i32) (is: []i64) : ([]i32, []i64) =
  let is' = map (\i -> i % 2) is
  in unzip (hist (\(a, n) (b, k) -> let c = n + k
                                    in (assert (c <= cap) (a + b), c))
                 (0i32, 0i64) 2 is' (zip xs (map (\_ -> 1i64) xs)))

-- ==
-- entry: capped_counts
-- input { 10i64 4i64 [0i64, 1i64, 0i64, 3i64] } output { [2i64, 1i64, 0i64, 1i64] }
-- input { 1i64 4i64 [0i64, 1i64, 0i64, 3i64] } error: ^assertion failed at .*hist_private_locked\.arr:66:
-- random input { 100000i64 16i64 [5000]i64 } auto output
-- random input { 100i64 16i64 [5000]i64 } error: ^assertion failed at .*hist_private_locked\.arr:66:
-- random input { 100000i64 5000i64 [5000]i64 } auto output

-- Counts per bin (one atomic bin, privatised) whose operator fails once a
-- bin passes `cap`.
entry capped_counts (cap: i64) (m: i64) (is: []i64) : []i64 =
  hist (\a b -> assert (a + b <= cap) (a + b)) 0 m (map (\i -> i % m) is) (map (\_ -> 1i64) is)
