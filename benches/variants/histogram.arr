-- Idiomatic variants of benches/programs/histogram.arr (issue 20).
-- `canonical` is the bench program; the others:
--   by_index   `reduce_by_index` into a replicated array
--   unzipped   bins and ones made by one map, `unzip`ped
--   map_ones   the ones made by `map` over the input, not `replicate`
-- ==
-- entry: canonical by_index unzipped map_ones
-- input { [1, 2, 257, -1, 255, 0, 512, 3] }
-- output { [2i32, 2i32, 1i32, 1i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 2i32] }

-- ==
-- entry: canonical by_index unzipped map_ones
-- random input { [50000000]i32 }
-- tags { bench }

entry canonical [n] (xs: [n]i32) : [256]i32 =
  hist (+) 0 256 (map (\x -> i64.i32 (x & 255)) xs) (replicate n 1)

entry by_index [n] (xs: [n]i32) : [256]i32 =
  reduce_by_index (replicate 256 0) (+) 0 (map (\x -> i64.i32 (x & 255)) xs) (replicate n 1)

entry unzipped [n] (xs: [n]i32) : [256]i32 =
  let (is, vs) = unzip (map (\x -> (i64.i32 (x & 255), 1i32)) xs)
  in hist (+) 0 256 is vs

entry map_ones [n] (xs: [n]i32) : [256]i32 =
  hist (+) 0 256 (map (\x -> i64.i32 (x & 255)) xs) (map (\_ -> 1i32) xs)
