-- Counting the kept elements: `length` of a filter, fused with a sum of them.
-- ==
-- input { [1i32, -2i32, 3i32, 0i32, -5i32, 7i32] } output { 3i64 11i32 }
-- random input { [1000]i32 }
entry main (xs: []i32) : (i64, i32) =
  let ys = filter (> 0) xs
  in (length ys, reduce (+) 0 ys)
