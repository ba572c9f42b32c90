-- a map over an array of pairs using only the first component: only that
-- column is read (unused components are dropped by the simplifier).
-- ==
-- input { [1, 2, 3] [4, 5, 6] } output { [2, 4, 6] }
entry main (as: []i32) (bs: []i32) : []i32 =
  map (\(a, _) -> a * 2) (zip as bs)
