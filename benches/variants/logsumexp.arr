-- Idiomatic variants of benches/programs/logsumexp.arr (issue 20).
-- `canonical` is the bench program; the others:
--   reduces   `reduce f64.max` and `reduce (+)` written out
--   argmax    the maximum found by `reduce` on (value, index) pairs, then read
--   argmax_nested  the same pairs' operator as nested `if`s, the tie rule last
-- ==
-- entry: canonical reduces argmax argmax_nested
-- input { [1.0, 2.0, 3.0] } output { 3.40760596444438 }
-- input { [1000.0, 1000.0] } output { 1000.6931471805599 }

-- ==
-- entry: canonical reduces argmax argmax_nested
-- random input { [10000000]f64 }
-- tags { bench }

entry canonical [n] (xs: [n]f64) : f64 =
  let m = f64.maximum xs
  in m + f64.log (f64.sum (map (\x -> f64.exp (x - m)) xs))

entry reduces [n] (xs: [n]f64) : f64 =
  let m = reduce f64.max (-f64.inf) xs
  in m + f64.log (reduce (+) 0.0 (map (\x -> f64.exp (x - m)) xs))

entry argmax [n] (xs: [n]f64) : f64 =
  let (m, _) =
    reduce (\(a, i) (b, j) -> if b > a || (b == a && j < i) then (b, j) else (a, i))
      (-f64.inf, -1i64) (zip xs (iota n))
  in m + f64.log (f64.sum (map (\x -> f64.exp (x - m)) xs))

entry argmax_nested [n] (xs: [n]f64) : f64 =
  let (m, _) =
    reduce (\(a, i) (b, j) ->
              if b > a then (b, j) else if a > b then (a, i) else if j < i then (b, j) else (a, i))
      (-f64.inf, -1i64) (zip xs (iota n))
  in m + f64.log (f64.sum (map (\x -> f64.exp (x - m)) xs))
