-- The filtered array is also a result: it must be in memory, so the
-- fused loop compacts the kept elements while it sums them (one pass).
-- ==
-- input { [1i32, -2i32, 3i32, 0i32, -5i32, 7i32] } output { [1i32, 3i32, 7i32] 11i32 }
-- random input { [1000]i32 }
entry main (xs: []i32) : ([]i32, i32) =
  let ys = filter (> 0) xs
  in (ys, reduce (+) 0 ys)
