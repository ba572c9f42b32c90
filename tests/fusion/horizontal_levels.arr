-- Issue 21, item 1: sharing the read of one input (`ys` by `b1` and `a2`,
-- or `xs` by `a1` and `b2`) needs three cluster levels though every path
-- has one edge; cluster numbers bounded by the longest path missed it.
-- ==
-- input { [1.0f32, 2.0f32, 3.0f32] [4.0f32, 4.0f32, 2.0f32] }
-- output { [0.6666667f32, 0.6666667f32, 0.33333334f32] [0.1f32, 0.2f32, 0.3f32] }
-- random input { [1000]f32 [1000]f32 }

entry main (xs: []f32) (ys: []f32) : ([]f32, []f32) =
  let a1 = reduce (+) 0 xs
  let a2 = map (\y -> y / a1) ys
  let b1 = reduce (+) 0 ys
  let b2 = map (\x -> x / b1) xs
  in (a2, b2)
