-- The filtered array is also a result: it must be in memory, so the
-- filter stays a cluster of its own and the sum reads it.
-- ==
-- input { [1i32, -2i32, 3i32, 0i32, -5i32, 7i32] } output { [1i32, 3i32, 7i32] 11i32 }
-- random input { [1000]i32 }
entry main (xs: []i32) : ([]i32, i32) =
  let ys = filter (> 0) xs
  in (ys, reduce (+) 0 ys)
