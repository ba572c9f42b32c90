-- Issue 21, item 2: one read of an array per cluster however many members
-- stream it, whatever their order. `p` is written once and read once (with
-- the cheap map `q` recomputed in each consumer): 5n elements moved besides
-- the results, where charging reads per edge gave 7n.
-- ==
-- input { [0.0f32, 1.0f32, -2.0f32] }
-- output { [98.18112f32, 152.63672f32, 184.71014f32] [21.025875f32, 24.908384f32, 27.195118f32] }
-- random input { [1000]f32 }

entry main (xs: []f32) : ([]f32, []f32) =
  let p = map (\x -> f32.sqrt (x * x + 1) * 3 - x / 7 + f32.sin x) xs
  let s = reduce (+) 0 p
  let q = map (\v -> v * 2 + 1) p
  let c1 = map (\v -> v * s) q
  let c2 = map (\v -> v + s) q
  in (c1, c2)
