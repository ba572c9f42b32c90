-- Float `maximum`/`minimum` reductions with NaN elements: a NaN operand
-- of `max`/`min` yields the other one (C's fmax/fmin), so NaNs are
-- skipped, and an array of only NaNs gives the neutral element. The
-- compiled loops keep the accumulator a number and vectorise
-- (`Gen::nan_free_extremum`); long arrays reach the vector loop and its
-- remainder, short ones only the remainder.
-- ==
-- entry: max_f64
-- input { 1000i64 7i64 } output { 998.0 -999.0 }
-- input { 1003i64 1i64 } output { -f64.inf f64.inf }
-- input { 5i64 2i64 } output { 4.0 0.0 }
-- input { 0i64 2i64 } output { -f64.inf f64.inf }

def value (nan_every: i64) (i: i64) : f64 =
  if i % nan_every == nan_every - 1 then f64.nan
  else if i % 2 == 0 then f64.i64 i else -(f64.i64 i)

entry max_f64 (n: i64) (nan_every: i64) : (f64, f64) =
  let xs = map (value nan_every) (iota n)
  in (f64.maximum xs, f64.minimum xs)

-- ==
-- entry: max_f32
-- input { 1000i64 7i64 } output { 998.0f32 -999.0f32 }
-- input { 999i64 1i64 } output { -f32.inf f32.inf }

entry max_f32 (n: i64) (nan_every: i64) : (f32, f32) =
  let xs = map (\i -> f32.f64 (value nan_every i)) (iota n)
  in (f32.maximum xs, f32.minimum xs)

-- A NaN neutral element is replaced by the first number; with only NaNs
-- the result is NaN.
-- ==
-- entry: nan_neutral
-- input { 1000i64 3i64 } output { 996.0 -999.0 }
-- input { 1000i64 1i64 } output { f64.nan f64.nan }

entry nan_neutral (n: i64) (nan_every: i64) : (f64, f64) =
  let xs = map (value nan_every) (iota n)
  in (reduce f64.max f64.nan xs, reduce f64.min f64.nan xs)

-- Infinite elements are numbers like any other.
-- ==
-- entry: infinities
-- input { [1.0, f64.inf, f64.nan, -f64.inf] } output { f64.inf -f64.inf }

entry infinities (xs: []f64) : (f64, f64) = (f64.maximum xs, f64.minimum xs)
