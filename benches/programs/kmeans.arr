-- One step of k-means (Lloyd): the first k points are the centroids; every
-- point goes to its nearest centroid (first on ties), and each centroid
-- moves to the mean of its points (sums in f64; an empty cluster keeps its
-- centroid).
-- ==
-- input { 2i64 [[0.0f32, 0.0f32], [10.0f32, 10.0f32], [1.0f32, 0.0f32], [9.0f32, 10.0f32], [0.0f32, 2.0f32]] }
-- output { [[0.33333334f32, 0.6666667f32], [9.5f32, 10.0f32]] }

-- ==
-- random input { 16i64 [1000000][4]f32 }
-- tags { bench }
entry main [n] [d] (k: i64) (points: [n][d]f32) : [k][d]f32 =
  let cs = points[:k]
  let nearest (p: [d]f32) : i64 =
    let (best, _) =
      loop (best, bd) = (0i64, f32.inf) for c < k do
        let dist = reduce (+) 0.0f32 (map2 (\x y -> (x - y) * (x - y)) p cs[c])
        in if dist < bd then (c, dist) else (best, bd)
    in best
  let assign = map nearest points
  let counts = hist (+) 0i64 k assign (replicate n 1i64)
  let sums =
    tabulate d (\j -> hist (+) 0.0f64 k assign (map (\p -> f64.f32 p[j]) points))
  in tabulate_2d k d (\c j ->
       if counts[c] == 0 then cs[c, j]
       else f32.f64 (sums[j, c] / f64.i64 counts[c]))
