-- Found by `arrc random --nests` (seed 13100054, a product whose right
-- operand is a map over no rows). A map over an empty array keeps its
-- rows' length, as Futhark's sizes say: `b` is empty([0][m]f32), so its
-- transpose has m rows. The interpreter finds row shapes by a trial run
-- on rows of zeros; there `replicate (i - 1)` has a negative size, which
-- stopped the trial, and the rows fell back to length 0 (empty([0][0]),
-- transposed empty([0][0]), while every binary gave empty([1][0])).
-- ==
-- input { 1i64 } output { empty([1][0]f32) }
-- input { 3i64 } output { empty([3][0]f32) }
-- input { 0i64 } output { empty([0][0]f32) }

entry main (m: i64) : [][]f32 =
  let b = map (\i -> map (\_ -> f32.minimum (replicate (i - 1) 1f32)) (iota m)) (iota 0)
  in transpose b

-- ==
-- entry: product
-- input { empty([0]i32) } output { [[0f32], [0f32], [0f32]] }
-- input { [1i32, 2i32] } output { [[0f32, 0f32, 0f32], [0f32, 0f32, 0f32], [0f32, 0f32, 0f32]] }

entry product (xs: []i32) : [][]f32 =
  let k = 0i64
  let m = 1 + length xs
  let a = tabulate_2d 3 k (\_ _ -> 1f32)
  let b = map (\_ -> map (\_ -> f32.minimum (replicate (-1) 1f32)) (iota m)) (iota k)
  in map (\r -> map (\c -> f32.sum (map2 (*) r c)) (transpose b)) a
