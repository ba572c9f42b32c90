-- Idiomatic variants of benches/programs/filter.arr (issue 20). `canonical`
-- is the bench program; the others:
--   partitioned  the first half of `partition`
--   by_scatter   the hand-written compaction: flags, `scan`, `scatter`
-- ==
-- entry: canonical partitioned by_scatter
-- input { [0.1f32, 0.7f32, 0.5f32, 0.9f32, 0.2f32] } output { [0.7f32, 0.9f32] }
-- input { [0.1f32] } output { empty([0]f32) }

-- ==
-- entry: canonical partitioned by_scatter
-- random input { [50000000]f32 }
-- tags { bench }

entry canonical [n] (xs: [n]f32) : []f32 =
  filter (\x -> x > 0.5f32) xs

entry partitioned [n] (xs: [n]f32) : []f32 =
  let (keep, _) = partition (\x -> x > 0.5f32) xs
  in keep

entry by_scatter [n] (xs: [n]f32) : []f32 =
  let flags = map (\x -> if x > 0.5f32 then 1i64 else 0i64) xs
  let offsets = scan (+) 0 flags
  let kept = if n == 0 then 0 else offsets[n - 1]
  let targets = map2 (\f o -> if f == 1 then o - 1 else -1) flags offsets
  in scatter (replicate kept 0.0f32) targets xs
