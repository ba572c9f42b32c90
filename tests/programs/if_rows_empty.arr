-- A `map` whose rows come out of an `if` with arrays of the same declared
-- size in both arms keeps that size when there are no rows: the result of
-- mapping over zero rows of `[3]i32` is `[0][3]i32`, not `[0][0]i32`
-- (issue 22).

-- ==
-- entry: either_arm
-- input { [true, false, true] [[1, 2, 3], [4, 5, 6], [7, 8, 9]] }
-- output { [[2, 3, 4], [8, 10, 12], [8, 9, 10]] }
-- input { empty([0]bool) empty([0][3]i32) }
-- output { empty([0][3]i32) }
-- random input { [30]bool [30][3]i32 }
-- auto output

entry either_arm [n] (cs: [n]bool) (xss: [n][3]i32) : [n][3]i32 =
  map2 (\c xs -> if c then map (+ 1) xs else map (* 2) xs) cs xss

-- ==
-- entry: sized_by_parameter
-- input { 4i64 empty([0]i32) }
-- output { empty([0][4]i32) }
-- input { 2i64 [5, -1] }
-- output { [[5, 5], [0, 1]] }

entry sized_by_parameter [n] (k: i64) (xs: [n]i32) : [n][k]i32 =
  map (\x -> if x > 0 then replicate k x else map i32.i64 (iota k)) xs
