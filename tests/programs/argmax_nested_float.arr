-- Argmax and argmin by `reduce` on float (value, index) pairs written as
-- nested `if`s whose last test is the tie rule (`loopy::select` runs them
-- in strided lanes, the tie test folded): a NaN element reaches the tie
-- test and never wins, -0.0 and 0.0 tie and the first index wins, the
-- neutral (index -1) wins ties with the neutral value; lengths around the
-- lanes (8), one element, empty.
-- ==
-- entry: argmax_f64 argmin_f32
-- input { [1.0, f64.nan, 3.0, 3.0, -0.0, 2.0, 3.0, 1.0, 0.0, 5.0, f64.nan] }
-- auto output
-- input { [f64.nan, 2.0, 2.0, f64.nan, 1.0, 2.0, 0.0, 2.0, 2.0] }
-- auto output
-- input { [f64.nan, f64.nan, f64.nan, f64.nan, f64.nan, f64.nan, f64.nan, f64.nan, f64.nan] }
-- auto output
-- input { [f64.inf, -f64.inf, f64.inf, -f64.inf, f64.inf, -f64.inf, f64.inf, -f64.inf, f64.inf] }
-- auto output
-- input { [0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 0.0, -0.0, -0.0, 0.0] }
-- auto output
-- input { [-0.0, 0.0, 0.0, -0.0, 0.0, -0.0, 0.0, -0.0, -0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.0] }
-- auto output
-- input { empty([0]f64) }
-- auto output
-- input { [7.0] }
-- auto output
-- input { [f64.nan] }
-- auto output
-- random input { [7]f64 }
-- auto output
-- random input { [9]f64 }
-- auto output
-- random input { [5000]f64 }
-- auto output

-- ==
-- entry: ties_max ties_min
-- input { [0i64, 1i64, 2i64, 3i64, 4i64, 5i64, 6i64, 7i64, 8i64, 9i64, 10i64, 11i64, 12i64, 13i64] }
-- auto output
-- random input { [17]i64 }
-- auto output
-- random input { [4100]i64 }
-- auto output
-- random input { [10000]i64 }
-- auto output

entry argmax_f64 [n] (xs: [n]f64) : (f64, i64) =
  reduce (\(a, i) (b, j) ->
            if b > a then (b, j) else if a > b then (a, i) else if j < i then (b, j) else (a, i))
    (-f64.inf, -1i64) (zip xs (iota n))

-- The sign of zero shows in `1 / v`.
entry argmin_f32 [n] (xs: [n]f64) : (f32, f32, i64) =
  let (v, i) =
    reduce (\(a, i) (b, j) ->
              if b < a then (b, j) else if a < b then (a, i) else if j < i then (b, j) else (a, i))
      (f32.inf, -1i64) (zip (map f32.f64 xs) (iota n))
  in (v, 1 / v, i)

-- Few distinct values from `xs` (many ties), -0.0 from odd elements, and
-- infinities and NaN (0 * -inf) where `x % 13 == 0`; branch-free and
-- unable to fail, so that the reduction still runs in strided lanes.
def values [n] (xs: [n]i64) : [n]f64 =
  map (\x -> f64.i64 (x % 5 - 2) * f64.i64 (1 - 2 * (x % 2)) * f64.log (f64.i64 (x % 13))) xs

-- The greatest's first index.
entry ties_max [n] (xs: [n]i64) : (f64, i64) =
  reduce (\(a, i) (b, j) ->
            if b > a then (b, j) else if a > b then (a, i) else if j < i then (b, j) else (a, i))
    (-f64.inf, -1i64) (zip (values xs) (iota n))

-- The least's first index from the neutral index 0 (as kmeans writes
-- it), and the sign of the least.
entry ties_min [n] (xs: [n]i64) : (f64, f64, i64) =
  let (lo, at_lo) =
    reduce (\(a, i) (b, j) ->
              if b < a then (b, j) else if a < b then (a, i) else if j < i then (b, j) else (a, i))
      (f64.inf, 0i64) (zip (values xs) (iota n))
  in (lo, 1 / lo, at_lo)
