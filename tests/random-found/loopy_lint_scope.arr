-- Found by `arrc random` (seeds 1000 and 1003, shrunk by hand). The build
-- fails at -O0 and -O3 (ilp fusion): "loopy lint, entry `main`: variable
-- v_33 used outside the scope of its definition". A map over an empty
-- filter result whose lambda binds an unused array, beside an unrelated
-- tabulate_2d.
-- ==
-- input { 3i64 } output { [[0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64], [0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64], [0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64], [0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64], [0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64]] }

entry main (n: i64) : [][]f64 =
  let a = tabulate_2d 5 5 (\_ _ -> 0f64)
  let b = map (\_ -> let s = tabulate 1 (\_ -> 0i8) in 0i8) (filter (\_ -> false) (replicate n 0f32))
  in a
