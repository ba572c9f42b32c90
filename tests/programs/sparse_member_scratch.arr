-- Found by `arrc random` (seeds 104, 1000, 1003, 2215, 5063, 5113, 5148,
-- 5161; shrunk by hand). A map fused under a filter's predicate binds an
-- array of its own; its `free` was placed after the guard, outside the
-- scope of the allocation, and the loopy lint stopped the build at -O0 and
-- -O3 under ilp fusion. Arrays allocated under the guard are now freed
-- there.
-- ==
-- input { 3i64 } output { [[0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64], [0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64], [0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64], [0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64], [0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64]] }

entry main (n: i64) : [][]f64 =
  let a = tabulate_2d 5 5 (\_ _ -> 0f64)
  let b = map (\_ -> let s = tabulate 1 (\_ -> 0i8) in 0i8) (filter (\_ -> false) (replicate n 0f32))
  in a
