-- A nest over an explicit `loop` over the centres, or over an `argmin` of
-- a sum per centre, runs several points per iteration (`loopy::jam`), the
-- sums over each point's coordinates jammed too: any number of points
-- (the last block partly past the end, or none), ties to the first
-- centre, and the first error still the first.
-- ==
-- input { [[0.0f32, 0.0f32], [10.0f32, 10.0f32], [1.0f32, 0.0f32], [9.0f32, 10.0f32],
--          [0.0f32, 2.0f32], [5.0f32, 5.0f32], [4.0f32, 6.0f32], [20.0f32, 1.0f32],
--          [-3.0f32, 0.5f32], [2.5f32, 2.5f32], [7.5f32, 7.5f32]]
--         [[0.0f32, 0.0f32], [5.0f32, 5.0f32], [10.0f32, 10.0f32]] }
-- output { [0i64, 2i64, 0i64, 2i64, 0i64, 1i64, 1i64, 2i64, 0i64, 0i64, 1i64] }
-- input { [[1.0f32, 2.0f32, 3.0f32]] [[1.0f32, 2.0f32, 4.0f32], [1.0f32, 2.0f32, 2.0f32]] }
-- output { [0i64] }
-- input { empty([0][2]f32) [[1.0f32, 1.0f32]] } output { empty([0]i64) }
-- input { [[1.0f32], [2.0f32]] empty([0][1]f32) } output { [0i64, 0i64] }
entry main [n] [k] [d] (ps: [n][d]f32) (cs: [k][d]f32) : [n]i64 =
  map (\p ->
         let (best, _) =
           loop (best, bd) = (0i64, f32.inf) for c < k do
             let dist = f32.sum (map2 (\x y -> (x - y) * (x - y)) p cs[c])
             in if dist < bd then (c, dist) else (best, bd)
         in best)
      ps

-- The same search as an `argmin` of a sum per centre, with the counts of
-- the histogram fused behind it.
-- ==
-- entry: counts
-- input { [[0.0f32, 0.0f32], [10.0f32, 10.0f32], [1.0f32, 0.0f32], [9.0f32, 10.0f32],
--          [0.0f32, 2.0f32], [5.0f32, 5.0f32], [4.0f32, 6.0f32], [20.0f32, 1.0f32],
--          [-3.0f32, 0.5f32], [2.5f32, 2.5f32], [7.5f32, 7.5f32]]
--         [[0.0f32, 0.0f32], [5.0f32, 5.0f32], [10.0f32, 10.0f32]] }
-- output { [5i64, 3i64, 3i64] }
-- input { empty([0][3]f32) [[1.0f32, 1.0f32, 1.0f32]] } output { [0i64] }
entry counts [n] [k] [d] (ps: [n][d]f32) (cs: [k][d]f32) : [k]i64 =
  let labels =
    map (\p -> argmin (map (\c -> f32.sum (map2 (\x y -> (x - y) * (x - y)) p c)) cs)) ps
  in hist (+) 0 k labels (replicate n 1i64)

-- Centre `c` is compared with row `c + 1` of `ref`: with as many rows as
-- centres, the last centre's index is out of range in every point alike,
-- so the first point's search reports it (with no points, no error). Each
-- point then looks up `tags[2 i + label]`: in the last case point 4 is the
-- first out of range.
-- ==
-- entry: checked
-- input { [[0.0f32], [10.0f32], [1.0f32]] [[0.0f32], [10.0f32]] [[0.0f32], [10.0f32]]
--         [0i64, 1i64, 2i64, 3i64, 4i64, 5i64, 6i64, 7i64, 8i64] }
-- error: index 2 out of bounds
-- input { empty([0][1]f32) [[0.0f32], [10.0f32]] [[0.0f32], [10.0f32]] [0i64] }
-- output { empty([0]i64) }
-- input { [[0.0f32], [10.0f32], [1.0f32], [9.0f32], [0.0f32], [5.0f32], [4.0f32], [20.0f32], [-3.0f32]]
--         [[0.0f32], [10.0f32], [3.0f32]] [[0.0f32], [10.0f32], [20.0f32], [3.0f32]]
--         [0i64, 1i64, 2i64, 3i64, 4i64, 5i64, 6i64, 7i64, 8i64] }
-- error: index 10 out of bounds
-- input { [[0.0f32], [10.0f32], [1.0f32]]
--         [[0.0f32], [10.0f32], [3.0f32]] [[0.0f32], [10.0f32], [20.0f32], [3.0f32]]
--         [0i64, 1i64, 2i64, 3i64, 4i64, 5i64, 6i64, 7i64, 8i64] }
-- output { [2i64, 2i64, 6i64] }
entry checked [n] [k] [d] (ps: [n][d]f32) (cs: [k][d]f32) (ref: [][d]f32) (tags: []i64) : [n]i64 =
  map2 (\i p ->
          let (best, _) =
            loop (best, bd) = (0i64, f32.inf) for c < k do
              let dist = f32.sum (map2 (\x y -> (x - y) * (x - y)) p ref[c + 1])
              in if dist < bd then (c, dist) else (best, bd)
          in tags[2 * i + best])
       (iota n) ps
