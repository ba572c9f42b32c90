-- Compaction by `scan` and `scatter` (each flagged element to its prefix
-- sum minus one, into a destination of the flags' total) is a `filter`
-- (`simplify-compaction`, issue 20): the same elements in the same order,
-- empty, all kept, none kept, around the chunk grain, flags from another
-- array, a failing predicate's first error, and shapes that are not the
-- pattern (a shifted target, a larger destination) keeping their meaning.

-- ==
-- entry: by_flags by_bool
-- input { empty([0]f32) } output { empty([0]f32) }
-- input { [0.1f32] } output { empty([0]f32) }
-- input { [0.9f32] } output { [0.9f32] }
-- input { [0.6f32, 0.7f32, 0.8f32] } output { [0.6f32, 0.7f32, 0.8f32] }
-- input { [0.1f32, 0.2f32, 0.3f32] } output { empty([0]f32) }
-- input { [0.1f32, 0.7f32, 0.5f32, 0.9f32, 0.2f32] } output { [0.7f32, 0.9f32] }
-- random input { [4095]f32 } auto output
-- random input { [4096]f32 } auto output
-- random input { [4097]f32 } auto output
-- random input { [100003]f32 } auto output

entry by_flags [n] (xs: [n]f32) : []f32 =
  let flags = map (\x -> if x > 0.5f32 then 1i64 else 0i64) xs
  let offsets = scan (+) 0 flags
  let kept = if n == 0 then 0 else offsets[n - 1]
  let targets = map2 (\f o -> if f == 1 then o - 1 else -1) flags offsets
  in scatter (replicate kept 0.0f32) targets xs

entry by_bool [n] (xs: [n]f32) : []f32 =
  let flags = map (\x -> x > 0.5f32) xs
  let offs = scan (+) 0 (map i64.bool flags)
  let k = if n > 0 then offs[n - 1] else 0
  let targets = map2 (\f o -> if f then o - 1 else -1) flags offs
  in scatter (replicate k 0f32) targets xs

-- The flags from one array, the values of another; the count by a sum.
-- ==
-- entry: by_other
-- input { empty([0]i32) empty([0]i64) } output { empty([0]i64) }
-- input { [3, -1, 4, -1, 5] [10i64, 20i64, 30i64, 40i64, 50i64] } output { [10i64, 30i64, 50i64] }
-- input { [-3, -1] [10i64, 20i64] } output { empty([0]i64) }
-- random input { [4097]i32 [4097]i64 } auto output

entry by_other [n] (ys: [n]i32) (xs: [n]i64) : []i64 =
  let flags = map (\y -> if y >= 0 then 1i64 else 0i64) ys
  let offs = scan (+) 0 flags
  let targets = map2 (\f o -> if f != 0 then o - 1 else -5) flags offs
  in scatter (replicate (i64.sum flags) 0i64) targets xs

-- A predicate that fails stops at the first bad element, as written.
-- ==
-- entry: failing
-- input { [1, 2, 3, 4] } output { [1, 2] }
-- input { [1, 0, 3, 0] } error: ^division by zero at .*compaction_scatter\.arr:57:
-- input { empty([0]i32) } output { empty([0]i32) }

entry failing [n] (xs: [n]i32) : []i32 =
  let flags = map (\x -> if 5 / x > 1 then 1i64 else 0i64) xs
  let offs = scan (+) 0 flags
  let k = if n == 0 then 0 else offs[n - 1]
  let targets = map2 (\f o -> if f == 1 then o - 1 else -1) flags offs
  in scatter (replicate k 0i32) targets xs

-- Not the pattern: targets one past the compacted place, in a destination
-- one longer (its first element stays), and a destination one shorter (the
-- last kept element falls outside).
-- ==
-- entry: shifted
-- input { empty([0]i32) } output { [7] }
-- input { [1, -2, 3, 4] } output { [7, 1, 3, 4] }
-- random input { [4097]i32 } auto output

entry shifted [n] (xs: [n]i32) : []i32 =
  let flags = map (\x -> if x > 0 then 1i64 else 0i64) xs
  let offs = scan (+) 0 flags
  let k = if n == 0 then 0 else offs[n - 1]
  let targets = map2 (\f o -> if f == 1 then o else -1) flags offs
  in scatter (replicate (k + 1) 7) targets xs

-- ==
-- entry: shorter
-- input { empty([0]i32) } output { [7] }
-- input { [1, -2, 3, 4] } output { [7, 1, 3] }
-- random input { [4097]i32 } auto output

entry shorter [n] (xs: [n]i32) : []i32 =
  let flags = map (\x -> if x > 0 then 1i64 else 0i64) xs
  let offs = scan (+) 0 flags
  let k = if n == 0 then 0 else offs[n - 1]
  let targets = map2 (\f o -> if f == 1 then o - 1 else -1) flags offs
  in [7] ++ scatter (replicate (i64.max 0 (k - 1)) 7) targets xs

-- One half of a partition, the other unused, is a filter; a predicate that
-- fails stops at the same element.
-- ==
-- entry: first_half
-- input { empty([0]i32) } output { empty([0]i32) }
-- input { [5, 5, 5] } output { empty([0]i32) }
-- random input { [4097]i32 } auto output

entry first_half [n] (xs: [n]i32) : []i32 =
  let (kept, _) = partition (\x -> x % 3 != 2) xs
  in kept

-- ==
-- entry: rest_half
-- input { empty([0]i32) } output { empty([0]i32) }
-- input { [1, 2, 3] } output { empty([0]i32) }
-- input { [4, 6, 9] } output { [4, 9] }
-- input { [1, 5, 3, 10] } error: ^division by zero at .*compaction_scatter\.arr:112:

entry rest_half [n] (xs: [n]i32) : []i32 =
  let (_, others) = partition (\x -> 7 / (x % 5) > 1) xs
  in others
