-- A 3 x 3 convolution written with a nested window: each interior pixel
-- sums the products of its neighbourhood with a `[3][3]f32` kernel, as two
-- nested `map`-`sum`s over `iota 3`; the border keeps its values.
-- ==
-- input { [[1.0f32, 2.0f32, 3.0f32], [4.0f32, 5.0f32, 6.0f32], [7.0f32, 8.0f32, 9.0f32]]
--         [[0.0f32, 0.0f32, 0.0f32], [0.0f32, 1.0f32, 0.0f32], [0.0f32, 0.0f32, 0.0f32]] }
-- output { [[1.0f32, 2.0f32, 3.0f32], [4.0f32, 5.0f32, 6.0f32], [7.0f32, 8.0f32, 9.0f32]] }
-- input { [[1.0f32, 2.0f32, 3.0f32, 4.0f32], [5.0f32, 6.0f32, 7.0f32, 8.0f32], [9.0f32, 10.0f32, 11.0f32, 12.0f32]]
--         [[1.0f32, 0.0f32, 0.0f32], [0.0f32, 0.0f32, 0.0f32], [0.0f32, 0.0f32, 2.0f32]] }
-- output { [[1.0f32, 2.0f32, 3.0f32, 4.0f32], [5.0f32, 23.0f32, 26.0f32, 8.0f32], [9.0f32, 10.0f32, 11.0f32, 12.0f32]] }

-- ==
-- random input { [4096][4096]f32 [3][3]f32 }
-- tags { bench }
entry main [n] [m] (img: [n][m]f32) (ker: [3][3]f32) : [n][m]f32 =
  tabulate_2d n m (\i j ->
    if i == 0 || j == 0 || i == n - 1 || j == m - 1 then img[i, j]
    else f32.sum (map (\di ->
           f32.sum (map (\dj -> img[i + di - 1, j + dj - 1] * ker[di, dj]) (iota 3)))
         (iota 3)))
