-- independent reductions over the same array share one loop and one read.
-- ==
-- random input { [1000]f64 }
entry main (xs: []f64) : (f64, f64, f64) =
  (reduce (+) 0 xs, reduce (*) 1 xs, reduce f64.max (-f64.inf) xs)
