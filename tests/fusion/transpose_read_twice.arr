-- A transposed matrix read both as columns and whole: the copy is made
-- for the whole use, the column reads still go to the source.
-- ==
-- input { [[1, 2, 3], [4, 5, 6]] } output { [5, 7, 9] [[1, 4], [2, 5], [3, 6]] }
-- random input { [40][30]i32 }
entry main [n][m] (a: [n][m]i32) : ([m]i32, [m][n]i32) =
  let t = transpose a
  in (map (\c -> reduce (+) 0 c) t, t)
