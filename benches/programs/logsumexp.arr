-- log-sum-exp of a double-precision vector, stable: the maximum first,
-- then the log of the sum of exp (x - max).
-- ==
-- input { [1.0, 2.0, 3.0] } output { 3.40760596444438 }
-- input { [1000.0, 1000.0] } output { 1000.6931471805599 }

-- ==
-- random input { [10000000]f64 }
-- tags { bench }
entry main [n] (xs: [n]f64) : f64 =
  let m = f64.maximum xs
  in m + f64.log (f64.sum (map (\x -> f64.exp (x - m)) xs))
