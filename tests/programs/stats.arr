-- Mean and variance from reductions, several entry points in one file.
-- ==
-- entry: mean
-- input { [1.0, 2.0, 3.0, 4.0] } output { 2.5 }
-- ==
-- entry: variance
-- input { [1.0, 2.0, 3.0, 4.0] } output { 1.25 }
-- random input { [1000]f64 }

def mean_of (xs: []f64) : f64 = reduce (+) 0 xs / f64.i64 (length xs)

entry mean (xs: []f64) : f64 = mean_of xs

entry variance (xs: []f64) : f64 =
  let m = mean_of xs
  in mean_of (map (\x -> (x - m) * (x - m)) xs)
