-- normalise2, the running example of van Balen's ILP fusion thesis: two
-- reductions, a scan and two maps over the same input. Optimal fusion runs it
-- in two loops: {sum1, scn, sum2} then {ys1, ys2}.
-- ==
-- input { [1.0f32, 2.0f32, 3.0f32, 4.0f32] }
-- output { [0.1f32, 0.2f32, 0.3f32, 0.4f32] [0.05f32, 0.1f32, 0.15f32, 0.2f32] }
-- input { [2.0f32] } output { [1.0f32] [1.0f32] }
-- random input { [10000]f32 }

entry main (xs: []f32) : ([]f32, []f32) =
  let sum1 = reduce (+) 0 xs
  let scn = scan (+) 0 xs
  let sum2 = reduce (+) 0 scn
  let ys1 = map (\x -> x / sum1) xs
  let ys2 = map (\x -> x / sum2) xs
  in (ys1, ys2)
