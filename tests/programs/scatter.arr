-- scatter dest is vs: writes vs[j] at is[j]; out-of-range indices are
-- ignored; the destination keeps its other values.

-- ==
-- entry: basic
-- input { [0, 0, 0, 0, 0] [1i64, 3i64] [10, 30] } output { [0, 10, 0, 30, 0] }
-- input { [1, 2, 3] [-1i64, 3i64, 100i64, 0i64] [7, 8, 9, 10] } output { [10, 2, 3] }
-- input { [1, 2, 3] empty([0]i64) empty([0]i32) } output { [1, 2, 3] }
-- input { [1, 2, 3] [0i64] [5, 6] } error: size mismatch

entry basic (dest: []i32) (is: []i64) (vs: []i32) : []i32 = scatter dest is vs

-- ==
-- entry: permute
-- input { [10.5, 20.5, 30.5] } output { [30.5, 20.5, 10.5] }

-- A reversal written as a scatter into a fresh array.
entry permute (xs: []f64) : []f64 =
  let n = length xs
  in scatter (replicate n 0) (map (\i -> n - 1 - i) (iota n)) xs

-- ==
-- entry: duplicates
-- input { [0, 0] [1i64, 1i64] [5, 5] } output { [0, 5] }

-- Duplicate indices store one of the values (here both are equal).
entry duplicates (dest: []i32) (is: []i64) (vs: []i32) : []i32 = scatter dest is vs

-- ==
-- entry: duplicates_any
-- unspecified input { [0, 0] [1i64, 1i64] [5, 6] } output { true }

-- With different values at one index, either may win (the case's tag
-- `unspecified` lets `arrc test --check-unspecified` run it unchecked: it
-- accepts every allowed result).
entry duplicates_any (dest: []i32) (is: []i64) (vs: []i32) : bool =
  let r = scatter dest is vs
  in r[0] == 0 && (r[1] == 5 || r[1] == 6)

-- ==
-- entry: rows
-- input { [[1, 1], [2, 2], [3, 3]] [2i64] [[9, 9]] } output { [[1, 1], [2, 2], [9, 9]] }

-- scatter with array-valued elements: replacing whole rows.
entry rows [k] (dest: [][k]i32) (is: []i64) (vs: [][k]i32) : [][k]i32 = scatter dest is vs

-- ==
-- entry: value_semantics
-- input { [1, 2, 3] } output { [1, 0, 3] [1, 2, 3] }

entry value_semantics (xs: []i32) : ([]i32, []i32) =
  (scatter xs [1] [0], xs)

-- ==
-- entry: bools
-- input { 4i64 [0i64, 2i64] } output { [true, false, true, false] }

entry bools (n: i64) (is: []i64) : []bool =
  scatter (replicate n false) is (map (\_ -> true) is)
