-- reductions over the rows of a 2-D array: a map whose function is a
-- reduction (nested parallelism), then a map over the row sums.
-- ==
-- input { [[1, 2, 3], [4, 5, 6]] } output { [12, 30] }
-- input { [[1, 2, 3]] } output { [12] }
-- random input { [100][50]i32 }
entry main [n][m] (rows: [n][m]i32) : [n]i32 =
  let sums = map (\r -> reduce (+) 0 r) rows
  in map (* 2) sums
