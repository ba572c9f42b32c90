-- map into a filter with a family: one loop reads `xs` and writes only
-- the sum; the second map, beside the first, runs in the same loop.
-- ==
-- input { [1i32, 5i32, 2i32, 7i32] } output { 6i32 [2i32, 10i32, 4i32, 14i32] }
-- random input { [1000]i32 }
entry main (xs: []i32) : (i32, []i32) =
  let ys = map (\x -> x - 3) xs
  let zs = map (\x -> x * 2) xs
  in (reduce (+) 0 (filter (> 0) ys), zs)
