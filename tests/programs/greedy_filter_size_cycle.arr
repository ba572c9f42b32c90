-- A filter's count feeds a loop whose result a consumer of the filter's
-- output reads: the filter family cannot fuse into one loop (it would run
-- both before and after the loop). Found by the random tester (seed 200012,
-- under --fusion greedy: "variable used outside the scope of its
-- definition").
-- ==
-- input { [1.0, 2.0, 3.0] }
-- output { 9.0f32 3i64 }
-- input { empty([0]f64) }
-- output { 0.0f32 0i64 }

entry main (xs: []f64) : (f32, i64) =
  let ys = filter (\x -> x > 0.0) xs
  let (k, _) = loop (c, d) = (0i64, 0i64) for i < 1i64 do (length ys, d)
  let s = reduce (+) 0f32 (map (\_ -> f32.i64 k) ys)
  in (s, k)
