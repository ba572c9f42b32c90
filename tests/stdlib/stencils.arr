-- stencil_1d and stencil_2d: neighbourhoods with indices clamped at the
-- borders, passed to the function in order.
-- ==
-- entry: sums_1d
-- input { 1i64 [1, 2, 3, 4] } output { [4, 6, 9, 11] }
-- input { 2i64 [1, 2, 3] } output { [8, 10, 12] }
-- input { 0i64 [7, 8] } output { [7, 8] }
-- input { 1i64 empty([0]i32) } output { empty([0]i32) }

-- ==
-- entry: digits_1d
-- input { [1, 2, 3, 4] } output { [112, 123, 234, 344] }

-- ==
-- entry: sums_2d
-- input { [[1, 2], [3, 4]] } output { [[18, 21], [24, 27]] }

-- ==
-- entry: corner_2d
-- input { [[1, 2, 3], [4, 5, 6], [7, 8, 9]] } output { [[2, 3, 3], [2, 3, 3], [5, 6, 6]] }

entry sums_1d (r: i64) (xs: []i32) = stencil_1d r (\w -> reduce (+) 0 w) xs

entry digits_1d (xs: []i32) = stencil_1d 1 (\w -> w[0] * 100 + w[1] * 10 + w[2]) xs

entry sums_2d (m: [][]i32) = stencil_2d 1 (\w -> reduce (+) 0 (map (reduce (+) 0) w)) m

-- The up-right neighbour.
entry corner_2d (m: [][]i32) = stencil_2d 1 (\w -> w[0, 2]) m
