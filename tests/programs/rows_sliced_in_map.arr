-- Maps whose rows are slices, reversals, rotations or concatenations of
-- their input rows: the rows' length is computed in the loop body, and
-- the result array, allocated before the loop, gets a copy of that
-- computation (these failed to compile before). Constant strides, either
-- sign, and a map nested in a map.

-- ==
-- entry: every_other
-- input { [[1, 2, 3], [4, 5, 6]] } output { [[1, 3], [4, 6]] }
-- input { [[1, 2, 3, 4], [5, 6, 7, 8]] } output { [[1, 3], [5, 7]] }
-- input { empty([0][5]i32) } output { empty([0][3]i32) }

entry every_other [n] [m] (xs: [n][m]i32) : [][]i32 = map (\r -> r[::2]) xs

-- ==
-- entry: backwards_by_two
-- input { [[1, 2, 3, 4], [5, 6, 7, 8]] } output { [[4, 2], [8, 6]] }
-- input { [[1, 2, 3, 4, 5]] } output { [[5, 3]] }

entry backwards_by_two [n] [m] (xs: [n][m]i32) : [][]i32 =
  map (\r -> r[m-1:0:-2]) xs

-- ==
-- entry: reversed
-- input { [[1, 2, 3], [4, 5, 6]] } output { [[3, 2, 1], [6, 5, 4]] }

entry reversed [n] [m] (xs: [n][m]i32) : [][]i32 = map (\r -> r[::-1]) xs

-- ==
-- entry: dropped_and_doubled
-- input { [[1, 2, 3], [4, 5, 6]] }
-- output { [[2, 3], [5, 6]] [[1, 2, 3, 1, 2, 3], [4, 5, 6, 4, 5, 6]] }

entry dropped_and_doubled [n] [m] (xs: [n][m]i32) : ([][]i32, [][]i32) =
  (map (\r -> drop 1 r) xs, map (\r -> concat r r) xs)

-- ==
-- entry: rotated
-- input { [[1, 2, 3], [4, 5, 6]] 1i64 } output { [[2, 3, 1], [5, 6, 4]] }

entry rotated [n] [m] (xs: [n][m]i32) (k: i64) : [][]i32 = map (\r -> rotate k r) xs

-- ==
-- entry: nested
-- input { [[[1, 2], [3, 4]], [[5, 6], [7, 8]]] }
-- output { [[[1], [3]], [[5], [7]]] }
-- random input { [3][17][5]i32 }

entry nested [n] [m] [p] (xss: [n][m][p]i32) : [][][]i32 =
  map (\rs -> map (\r -> take 1 r) rs) xss
