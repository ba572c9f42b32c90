-- A 3 x 3 convolution written with a nested window: each output pixel sums
-- the products of its neighbourhood (indices clamped at the border) with a
-- `[3][3]f32` kernel, as two nested `map`-`sum`s over `iota 3`.
-- ==
-- input { [[1.0f32, 2.0f32], [3.0f32, 4.0f32]]
--         [[0.0f32, 0.0f32, 0.0f32], [0.0f32, 1.0f32, 0.0f32], [0.0f32, 0.0f32, 0.0f32]] }
-- output { [[1.0f32, 2.0f32], [3.0f32, 4.0f32]] }
-- input { [[1.0f32, 2.0f32], [3.0f32, 4.0f32]]
--         [[1.0f32, 1.0f32, 1.0f32], [1.0f32, 1.0f32, 1.0f32], [1.0f32, 1.0f32, 1.0f32]] }
-- output { [[18.0f32, 21.0f32], [24.0f32, 27.0f32]] }

-- ==
-- random input { [4096][4096]f32 [3][3]f32 }
-- tags { bench }
entry main [n] [m] (img: [n][m]f32) (ker: [3][3]f32) : [n][m]f32 =
  tabulate_2d n m (\i j ->
    f32.sum (map (\di ->
      f32.sum (map (\dj ->
        let ii = i64.min (i64.max (i + di - 1) 0) (n - 1)
        let jj = i64.min (i64.max (j + dj - 1) 0) (m - 1)
        in img[ii, jj] * ker[di, dj]) (iota 3))) (iota 3)))
