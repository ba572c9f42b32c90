-- Argmax and argmin by `reduce` on (value, index) pairs, spelled the common
-- ways (`loopy::select` runs them in strided lanes on the CPU): ties go to
-- the first (or last) index, NaN elements never win, a neutral index of -1
-- wins ties with the neutral value; lengths around the lanes (8) and past
-- a chunk, ties and NaN generated at any length by `ties`.
-- ==
-- entry: argmax_f64
-- input { [1.0, f64.nan, 3.0, 3.0, -0.0, 2.0, 3.0, 1.0, 0.0, 5.0, f64.nan] }
-- output { 5.0 9i64 }
-- input { [f64.nan, 2.0, 2.0, f64.nan, 1.0, 2.0, 0.0, 2.0, 2.0] }
-- output { 2.0 1i64 }
-- input { [f64.nan, f64.nan, f64.nan] }
-- output { -f64.inf -1i64 }
-- input { [-f64.inf, -f64.inf, -f64.inf, -f64.inf, -f64.inf, -f64.inf, -f64.inf, -f64.inf, -f64.inf] }
-- output { -f64.inf -1i64 }
-- input { [0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 0.0, -0.0, -0.0, 0.0] }
-- auto output
-- input { [-0.0, 0.0, 0.0, -0.0, 0.0, -0.0, 0.0, -0.0, -0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.0] }
-- auto output
-- input { empty([0]f64) }
-- output { -f64.inf -1i64 }
-- input { [7.0] }
-- output { 7.0 0i64 }
-- random input { [7]f64 }
-- auto output
-- random input { [8]f64 }
-- auto output
-- random input { [17]f64 }
-- auto output
-- random input { [5000]f64 }
-- auto output

-- ==
-- entry: argmin_f32 argmin_from_zero argmax_last_i32 argmin_nested_i64
-- input { [3i64, 1i64, 4i64, 1i64, 5i64, 9i64, 2i64, 6i64, 1i64, 3i64] }
-- auto output
-- input { empty([0]i64) }
-- auto output
-- input { [5i64] }
-- auto output
-- random input { [9]i64 }
-- auto output
-- random input { [16]i64 }
-- auto output
-- random input { [4100]i64 }
-- auto output

-- ==
-- entry: ties
-- input { 0i64 5i64 4i64 } auto output
-- input { 1i64 5i64 4i64 } auto output
-- input { 9i64 3i64 4i64 } auto output
-- input { 100i64 7i64 10i64 } auto output
-- input { 5000i64 13i64 6i64 } auto output
-- input { 5000i64 13i64 1i64 } auto output
-- input { 4097i64 4096i64 2i64 } auto output

entry argmax_f64 [n] (xs: [n]f64) : (f64, i64) =
  reduce (\(a, i) (b, j) -> if b > a || (b == a && j < i) then (b, j) else (a, i))
    (-f64.inf, -1i64) (zip xs (iota n))

-- Small values, so that many are equal.
def small (x: i64) : i64 = (x * 7919) % 11

entry argmin_f32 [n] (xs: [n]i64) : (f32, i64) =
  reduce (\(a, i) (b, j) -> if b < a || (b == a && j < i) then (b, j) else (a, i))
    (f32.inf, -1i64) (zip (map (\x -> f32.i64 (small x) - 0.5) xs) (iota n))

-- A neutral index that is an element's (kmeans's `(f32.inf, 0i64)`).
entry argmin_from_zero [n] (xs: [n]i64) : (f32, i64) =
  reduce (\(a, i) (b, j) -> if b < a || (b == a && j < i) then (b, j) else (a, i))
    (f32.inf, 0i64) (zip (map (\x -> f32.i64 (small x)) xs) (iota n))

-- The last index of the greatest value, the pairs kept by their own test.
entry argmax_last_i32 [n] (xs: [n]i64) : (i32, i64) =
  reduce (\(a, i) (b, j) -> if a > b || (a == b && i > j) then (a, i) else (b, j))
    (i32.lowest, -1i64) (zip (map (\x -> i32.i64 (small x)) xs) (iota n))

entry argmin_nested_i64 [n] (xs: [n]i64) : (i64, i64) =
  reduce (\(a, i) (b, j) ->
            if b < a then (b, j) else if a < b then (a, i) else if j < i then (b, j) else (a, i))
    (i64.highest, -1i64) (zip (map small xs) (iota n))

-- `n` values `(k * 7919) % m`, NaN where `k % nan_every == 3`, -inf where
-- `k % nan_every == 1`: the greatest's first index, and the least's.
entry ties (n: i64) (m: i64) (nan_every: i64) : (f64, i64, f64, i64) =
  let xs = map (\k -> if k % nan_every == 3 then f64.nan
                      else if k % nan_every == 1 then -f64.inf
                      else f64.i64 ((k * 7919) % m)) (iota n)
  let (hi, at_hi) =
    reduce (\(a, i) (b, j) -> if b > a || (b == a && j < i) then (b, j) else (a, i))
      (-f64.inf, -1i64) (zip xs (iota n))
  let (lo, at_lo) =
    reduce (\(a, i) (b, j) -> if b < a || (b == a && j < i) then (b, j) else (a, i))
      (f64.inf, -1i64) (zip xs (iota n))
  in (hi, at_hi, lo, at_lo)
