-- Two predicates in one pass with one compaction, and two sums of a double filter.
-- ==
-- input { [1i32, -2i32, 3i32, 10i32, -5i32, 7i32, 4i32] } output { [1i32, 3i32, 7i32] 21i32 }
-- random input { [1000]i32 }
entry main (xs: []i32) : ([]i32, i32) =
  let a = filter (\x -> x % 2 != 0) (filter (> 0) xs)
  let b = reduce (+) 0 (filter (< 100) (filter (> 3) xs))
  in (a, b)
