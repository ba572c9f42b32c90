-- Idiomatic variants of benches/programs/dotprod.arr (issue 20: no
-- performance cliffs). `canonical` is the bench program; the others compute
-- the same f64 sum the way a Futhark user might write it:
--   zipped      map over `zip xs ys` with a tuple pattern
--   comm        `reduce_comm` instead of `reduce`
--   sum_fn      `f64.sum` of the mapped products
--   two_maps    products in f32 first, widened by a second map
--   tabulated   `tabulate n` indexing both inputs
-- ==
-- entry: canonical zipped comm sum_fn two_maps tabulated
-- input { [1.0f32, 2.0f32, 3.0f32] [4.0f32, 5.0f32, 6.0f32] } output { 32.0 }
-- input { empty([0]f32) empty([0]f32) } output { 0.0 }

-- ==
-- entry: canonical zipped comm sum_fn two_maps tabulated
-- random input { [50000000]f32 [50000000]f32 }
-- tags { bench }

entry canonical [n] (xs: [n]f32) (ys: [n]f32) : f64 =
  reduce (+) 0.0 (map2 (\x y -> f64.f32 (x * y)) xs ys)

entry zipped [n] (xs: [n]f32) (ys: [n]f32) : f64 =
  reduce (+) 0.0 (map (\(x, y) -> f64.f32 (x * y)) (zip xs ys))

entry comm [n] (xs: [n]f32) (ys: [n]f32) : f64 =
  reduce_comm (+) 0.0 (map2 (\x y -> f64.f32 (x * y)) xs ys)

entry sum_fn [n] (xs: [n]f32) (ys: [n]f32) : f64 =
  f64.sum (map2 (\x y -> f64.f32 (x * y)) xs ys)

entry two_maps [n] (xs: [n]f32) (ys: [n]f32) : f64 =
  let ps = map2 (*) xs ys
  in reduce (+) 0.0 (map f64.f32 ps)

entry tabulated [n] (xs: [n]f32) (ys: [n]f32) : f64 =
  reduce (+) 0.0 (tabulate n (\i -> f64.f32 (xs[i] * ys[i])))
