-- Index arithmetic: offsets that cancel and constants that combine.
-- nodes: add=0 sub=0 index=1
-- ==
-- input { [1i32, 2i32, 3i32] 1i64 } output { 2i32 0i64 }
-- input { [1i32, 2i32, 3i32] 5i64 } error: out of bounds

entry main (xs: []i32) (i: i64) : (i32, i64) =
  let j = (i + 2) - 1 - 1
  let k = (i - 3) + 1 + 2 - i
  in (xs[j], k)
