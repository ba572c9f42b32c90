-- Idiomatic variants of benches/programs/kmeans.arr (issue 20). `canonical`
-- is the bench program; the others:
--   argmin_fn   the nearest centroid by `argmin` of the distance row
--   pair_reduce the nearest centroid by `reduce` on (distance, index) pairs
--   by_column   the sums by one `hist` per column of `transpose points`
-- ==
-- entry: canonical argmin_fn pair_reduce by_column
-- input { 2i64 [[0.0f32, 0.0f32], [10.0f32, 10.0f32], [1.0f32, 0.0f32], [9.0f32, 10.0f32], [0.0f32, 2.0f32]] }
-- output { [[0.33333334f32, 0.6666667f32], [9.5f32, 10.0f32]] }

-- ==
-- entry: canonical argmin_fn pair_reduce by_column
-- random input { 16i64 [1000000][4]f32 }
-- tags { bench }

def centroids [n] [d] (k: i64) (points: [n][d]f32) (assign: [n]i64) (cs: [k][d]f32)
    (sums: [d][k]f64) : [k][d]f32 =
  let counts = hist (+) 0i64 k assign (replicate n 1i64)
  in tabulate_2d k d (\c j ->
       if counts[c] == 0 then cs[c, j]
       else f32.f64 (sums[j, c] / f64.i64 counts[c]))

def column_sums [n] [d] (k: i64) (points: [n][d]f32) (assign: [n]i64) : [d][k]f64 =
  tabulate d (\j -> hist (+) 0.0f64 k assign (map (\p -> f64.f32 p[j]) points))

entry canonical [n] [d] (k: i64) (points: [n][d]f32) : [k][d]f32 =
  let cs = points[:k]
  let nearest (p: [d]f32) : i64 =
    let (best, _) =
      loop (best, bd) = (0i64, f32.inf) for c < k do
        let dist = reduce (+) 0.0f32 (map2 (\x y -> (x - y) * (x - y)) p cs[c])
        in if dist < bd then (c, dist) else (best, bd)
    in best
  let assign = map nearest points
  in centroids k points assign cs (column_sums k points assign)

entry argmin_fn [n] [d] (k: i64) (points: [n][d]f32) : [k][d]f32 =
  let cs = points[:k]
  let assign =
    map (\p -> argmin (map (\c -> f32.sum (map2 (\x y -> (x - y) * (x - y)) p c)) cs))
      points
  in centroids k points assign cs (column_sums k points assign)

entry pair_reduce [n] [d] (k: i64) (points: [n][d]f32) : [k][d]f32 =
  let cs = points[:k]
  let nearest (p: [d]f32) : i64 =
    let dists = map (\c -> f32.sum (map2 (\x y -> (x - y) * (x - y)) p c)) cs
    let (_, best) =
      reduce (\(a, i) (b, j) -> if b < a || (b == a && j < i) then (b, j) else (a, i))
        (f32.inf, 0i64) (zip dists (iota k))
    in best
  let assign = map nearest points
  in centroids k points assign cs (column_sums k points assign)

entry by_column [n] [d] (k: i64) (points: [n][d]f32) : [k][d]f32 =
  let cs = points[:k]
  let nearest (p: [d]f32) : i64 =
    let (best, _) =
      loop (best, bd) = (0i64, f32.inf) for c < k do
        let dist = reduce (+) 0.0f32 (map2 (\x y -> (x - y) * (x - y)) p cs[c])
        in if dist < bd then (c, dist) else (best, bd)
    in best
  let assign = map nearest points
  let sums = map (\col -> hist (+) 0.0f64 k assign (map f64.f32 col)) (transpose points)
  in centroids k points assign cs sums
