-- normalise2 (examples/normalise2.arr) at benchmark size: the input is
-- widened to f64 once (xs'), then two reductions, a scan and two maps over
-- it. Optimal fusion needs two passes over the input: {sum1, scan, sum2}
-- and then {ys1, ys2}. The results are narrowed back to f32.
-- ==
-- input { [1.0f32, 2.0f32, 3.0f32, 4.0f32] }
-- output { [0.1f32, 0.2f32, 0.3f32, 0.4f32] [0.05f32, 0.1f32, 0.15f32, 0.2f32] }
-- input { [2.0f32] } output { [1.0f32] [1.0f32] }

-- ==
-- random input { [50000000]f32 }
-- tags { bench }
entry main [n] (xs: [n]f32) : ([n]f32, [n]f32) =
  let xs' = map f64.f32 xs
  let sum1 = reduce (+) 0.0 xs'
  let scn = scan (+) 0.0 xs'
  let sum2 = reduce (+) 0.0 scn
  let ys1 = map (\x -> f32.f64 (x / sum1)) xs'
  let ys2 = map (\x -> f32.f64 (x / sum2)) xs'
  in (ys1, ys2)
