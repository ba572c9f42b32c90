-- Dense single-precision matrix multiplication, written as the textbook
-- triple of map, map and reduce over a row of a and a column of b.
-- ==
-- input { [[1.0f32, 2.0f32], [3.0f32, 4.0f32]] [[5.0f32, 6.0f32], [7.0f32, 8.0f32]] }
-- output { [[19.0f32, 22.0f32], [43.0f32, 50.0f32]] }
-- input { [[1.0f32, 2.0f32, 3.0f32]] [[1.0f32], [1.0f32], [1.0f32]] } output { [[6.0f32]] }

-- ==
-- random input { [1024][1024]f32 [1024][1024]f32 }
-- tags { bench }
entry main [n] [k] [m] (a: [n][k]f32) (b: [k][m]f32) : [n][m]f32 =
  let bt = transpose b
  in map (\row -> map (\col -> reduce (+) 0.0f32 (map2 (*) row col)) bt) a
