-- a gather (a map indexing another array) feeding the values of a scatter.
-- ==
-- input { [10, 20, 30, 40] [3, 2, 1, 0] }
-- output { [10, 20, 30, 40] }
entry main (xs: []i32) (is: []i64) : []i32 =
  let vals = map (\i -> xs[i]) is
  in scatter (replicate (length xs) 0) is vals
