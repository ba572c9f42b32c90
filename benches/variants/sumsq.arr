-- Idiomatic variants of benches/programs/sumsq.arr (issue 20). `canonical`
-- is the bench program; the others:
--   widened_first  widen every element in one map, square in a second
--   sum_fn         `f64.sum` of the squares
--   comm           `reduce_comm`
--   record         the square carried in a one-field record, reduced on records
-- ==
-- entry: canonical widened_first sum_fn comm record
-- input { [1.0f32, 2.0f32, 3.0f32, -4.0f32] } output { 30.0 }
-- input { empty([0]f32) } output { 0.0 }

-- ==
-- entry: canonical widened_first sum_fn comm record
-- random input { [50000000]f32 }
-- tags { bench }

entry canonical [n] (xs: [n]f32) : f64 =
  reduce (+) 0.0 (map (\x -> let y = f64.f32 x in y * y) xs)

entry widened_first [n] (xs: [n]f32) : f64 =
  let ys = map f64.f32 xs
  in reduce (+) 0.0 (map (\y -> y * y) ys)

entry sum_fn [n] (xs: [n]f32) : f64 =
  f64.sum (map (\x -> f64.f32 x * f64.f32 x) xs)

entry comm [n] (xs: [n]f32) : f64 =
  reduce_comm (+) 0.0 (map (\x -> let y = f64.f32 x in y * y) xs)

entry record [n] (xs: [n]f32) : f64 =
  let r =
    reduce (\a b -> {s = a.s + b.s}) {s = 0.0f64}
      (map (\x -> {s = f64.f32 x * f64.f32 x}) xs)
  in r.s
