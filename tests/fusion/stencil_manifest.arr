-- a 3-point stencil reads its input at computed positions (gathers), so
-- the producer of that input stays manifest and is not fused into it.
-- ==
-- input { [1.0, 2.0, 3.0, 4.0] } output { [2.6666666666666665, 4.0, 6.0, 7.333333333333333] }
-- random input { [1000]f64 }
entry main (xs: []f64) : []f64 =
  let ys = map (* 2) xs
  let n = length ys
  in map (\i -> (ys[i64.max 0 (i - 1)] + ys[i] + ys[i64.min (n - 1) (i + 1)]) / 3) (iota n)
