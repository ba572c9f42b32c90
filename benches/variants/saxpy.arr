-- Idiomatic variants of benches/programs/saxpy.arr (issue 20). `canonical`
-- is the bench program; the others:
--   zipped     map over `zip xs ys` with a tuple pattern
--   tabulated  `tabulate n` indexing both inputs
--   records    zipped into records first, then one map over the records
--   scaled     `a * x` in one map, `+ y` in a second
-- ==
-- entry: canonical zipped tabulated records scaled
-- input { 2.0f32 [1.0f32, 2.0f32, 3.0f32] [0.5f32, 0.25f32, -1.0f32] }
-- output { [2.5f32, 4.25f32, 5.0f32] }
-- input { 0.5f32 empty([0]f32) empty([0]f32) } output { empty([0]f32) }

-- ==
-- entry: canonical zipped tabulated records scaled
-- random input { 2.0f32 [50000000]f32 [50000000]f32 }
-- tags { bench }

entry canonical [n] (a: f32) (xs: [n]f32) (ys: [n]f32) : [n]f32 =
  map2 (\x y -> a * x + y) xs ys

entry zipped [n] (a: f32) (xs: [n]f32) (ys: [n]f32) : [n]f32 =
  map (\(x, y) -> a * x + y) (zip xs ys)

entry tabulated [n] (a: f32) (xs: [n]f32) (ys: [n]f32) : [n]f32 =
  tabulate n (\i -> a * xs[i] + ys[i])

entry records [n] (a: f32) (xs: [n]f32) (ys: [n]f32) : [n]f32 =
  let rs = map2 (\x y -> {x, y}) xs ys
  in map (\r -> a * r.x + r.y) rs

entry scaled [n] (a: f32) (xs: [n]f32) (ys: [n]f32) : [n]f32 =
  let axs = map (a *) xs
  in map2 (+) axs ys
