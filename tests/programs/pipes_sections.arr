-- Pipes and operator sections.
-- ==
-- input { [1.0, 2.0, 3.0] } output { 12.0 [0.5, 1.0, 1.5] [1.0, 0.5, 0.3333333] }

entry main (xs: []f64) : (f64, []f64, []f64) =
  let total = xs |> map (* 2) |> reduce (+) 0
  in (total, map (/ 2) xs, map (1 /) xs)

-- A lambda may end a pipeline, as in Futhark.
-- ==
-- entry: into_lambda
-- input { [1, 2, 3] } output { 14 }
entry into_lambda (xs: []i32) : i32 =
  xs |> map (+ 1) |> \ys -> reduce (+) 0 ys |> \s -> s + 5
