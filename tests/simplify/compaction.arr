-- A scatter of each flagged element to its prefix sum minus one, into a
-- destination as long as the flags' total, is a filter
-- (`simplify::compaction`, issue 20): no scan, no scatter, no offsets
-- left in `flags` and `bools`. `shifted` scatters to the prefix sum
-- itself, into a destination one longer: not a filter, kept as written.
-- A partition of which one half is unused is a filter (`first`, `rest`).
-- nodes: filter=4 scatter=1 scan=1 replicate=1 partition=1
-- ==
-- entry: flags bools
-- input { [0.1f32, 0.7f32, 0.5f32, 0.9f32, 0.2f32] } output { [0.7f32, 0.9f32] }
-- input { empty([0]f32) } output { empty([0]f32) }

-- ==
-- entry: shifted
-- input { [0.1f32, 0.7f32, 0.5f32, 0.9f32, 0.2f32] } output { [1.0f32, 0.7f32, 0.9f32] }

entry flags [n] (xs: [n]f32) : []f32 =
  let flags = map (\x -> if x > 0.5f32 then 1i64 else 0i64) xs
  let offsets = scan (+) 0 flags
  let kept = if n == 0 then 0 else offsets[n - 1]
  let targets = map2 (\f o -> if f == 1 then o - 1 else -1) flags offsets
  in scatter (replicate kept 0.0f32) targets xs

entry bools [n] (xs: [n]f32) : []f32 =
  let keep = map (\x -> x > 0.5f32) xs
  let offs = scan (+) 0 (map i64.bool keep)
  let k = if n > 0 then offs[n - 1] else 0
  in scatter (replicate k 0f32) (map2 (\f o -> if f then o - 1 else -1) keep offs) xs

entry shifted [n] (xs: [n]f32) : []f32 =
  let flags = map (\x -> if x > 0.5f32 then 1i64 else 0i64) xs
  let offsets = scan (+) 0 flags
  let kept = if n == 0 then 0 else offsets[n - 1]
  let targets = map2 (\f o -> if f == 1 then o else -1) flags offsets
  in scatter (replicate (kept + 1) 1.0f32) targets xs

-- ==
-- entry: first
-- input { [1, -2, 3, -4] } output { [1, 3] }

-- ==
-- entry: rest
-- input { [1, -2, 3, -4] } output { [-2, -4] }

-- ==
-- entry: both
-- input { [1, -2, 3, -4] } output { [1, 3, -2, -4] }

entry first (xs: []i32) : []i32 =
  let (kept, _) = partition (\x -> x > 0) xs
  in kept

entry rest (xs: []i32) : []i32 =
  let (_, others) = partition (\x -> x > 0) xs
  in others

entry both (xs: []i32) : []i32 =
  let (kept, others) = partition (\x -> x > 0) xs
  in kept ++ others
