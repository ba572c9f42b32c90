-- One step of k-means on 2-D points, written the way a Futhark user
-- would: each point's label is the `argmin` of its squared distances to
-- the k centroids (a map inside the map over the points), then three
-- `hist`s move each centroid to the mean of its points (an empty cluster
-- keeps its centroid).
-- ==
-- input { [0.0f32, 10.0f32, 1.0f32, 9.0f32, 0.0f32] [0.0f32, 10.0f32, 0.0f32, 10.0f32, 2.0f32]
--         [0.0f32, 10.0f32, 50.0f32] [0.0f32, 10.0f32, 50.0f32] }
-- output { [0.33333334f32, 9.5f32, 50.0f32] [0.6666667f32, 10.0f32, 50.0f32] }

-- ==
-- random input { [1000000]f32 [1000000]f32 [16]f32 [16]f32 }
-- tags { bench }
entry main [n] [k] (xs: [n]f32) (ys: [n]f32) (cxs: [k]f32) (cys: [k]f32) : ([k]f32, [k]f32) =
  let labels =
    map2 (\x y -> argmin (map2 (\cx cy -> (x - cx) * (x - cx) + (y - cy) * (y - cy)) cxs cys))
         xs ys
  let counts = hist (+) 0i64 k labels (replicate n 1i64)
  let sx = hist (+) 0f32 k labels xs
  let sy = hist (+) 0f32 k labels ys
  let mean s c old = if c == 0 then old else s / f32.i64 c
  in (map3 mean sx counts cxs, map3 mean sy counts cys)
