def average (xs: []f64) : f64 = reduce (+) 0 xs / f64.i64 (length xs)

entry main (xs: []f64) : f64 =
  averge xs
