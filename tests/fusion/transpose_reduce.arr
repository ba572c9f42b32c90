-- Column averages of a mapped matrix (Futhark's fuse-across-transpose3):
-- one loop over the columns of `a`, no transposed copy, nothing written
-- but the averages.
-- ==
-- input { [[1, 2, 3], [4, 5, 6]] } output { [7, 10, 13] }
-- random input { [100][50]i32 }
entry main [n][m] (a: [n][m]i32) : [m]i32 =
  let b = map (\r -> map (* 3) r) a
  in map (\c -> reduce (+) 0 c / i32.i64 n) (transpose b)
