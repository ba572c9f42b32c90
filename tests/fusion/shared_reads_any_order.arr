-- Issue 21, item 2: one read of an array per cluster however many members
-- stream it, whatever their order. `p` is written once and read once (with
-- the cheap map `q` recomputed in each consumer): 5n elements moved besides
-- the results, where charging reads per edge gave 7n. (Integers, so that
-- the sum is exact however a build reassociates it.)
-- ==
-- input { [0, 1, -2] }
-- output { [69, 253, 805] [26, 34, 58] }
-- random input { [1000]i32 }

entry main (xs: []i32) : ([]i32, []i32) =
  let p = map (\x -> x * x * 3 - x / 7 + x % 5 + 1) xs
  let s = reduce (+) 0 p
  let q = map (\v -> v * 2 + 1) p
  let c1 = map (\v -> v * s) q
  let c2 = map (\v -> v + s) q
  in (c1, c2)
