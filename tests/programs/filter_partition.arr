-- filter keeps order; partition returns (matches, rest), both in order.

-- ==
-- entry: filter_even
-- input { [5, 2, 8, 1, 4, 7] } output { [2, 8, 4] }
-- input { [1, 3] } output { empty([0]i32) }
-- input { empty([0]i32) } output { empty([0]i32) }

entry filter_even (xs: []i32) : []i32 = filter (\x -> x % 2 == 0) xs

-- ==
-- entry: partition_even
-- input { [5, 2, 8, 1, 4, 7] } output { [2, 8, 4] [5, 1, 7] }
-- input { [2, 4] } output { [2, 4] empty([0]i32) }
-- input { empty([0]i32) } output { empty([0]i32) empty([0]i32) }

entry partition_even (xs: []i32) : ([]i32, []i32) = partition (\x -> x % 2 == 0) xs

-- ==
-- entry: filter_then_map
-- input { [1.0, -2.0, 3.0, -4.0] } output { [2.0, 6.0] 2i64 }

-- The filtered array's size is only known at run time.
entry filter_then_map (xs: []f64) : ([]f64, i64) =
  let ys = filter (> 0) xs
  in (map (* 2) ys, length ys)

-- ==
-- entry: filter_pairs
-- input { [1, 2, 3, 4] [10, 20, 30, 40] } output { [2, 4] [20, 40] }

-- Filtering an array of pairs keeps both components together.
entry filter_pairs (xs: []i32) (ys: []i32) : ([]i32, []i32) =
  unzip (filter (\(x, _) -> x % 2 == 0) (zip xs ys))

-- ==
-- entry: filter_f32_nan
-- input { [1.0f32, f32.nan, 2.0f32] } output { [1.0f32, 2.0f32] }

entry filter_f32_nan (xs: []f32) : []f32 = filter (\x -> !(f32.isnan x)) xs

-- ==
-- entry: partition_rows
-- input { [[1, 2], [3, 4], [5, 6]] } output { [[3, 4]] [[1, 2], [5, 6]] }

-- partition of a 2-D array by a property of each row (row sum divisible by 7).
entry partition_rows (m: [][]i32) : ([][]i32, [][]i32) =
  partition (\r -> (r[0] + r[1]) % 7 == 0) m

-- ==
-- entry: filter_index
-- input { [9, 8, 7, 6] } output { [0i64, 2i64] }

-- Indices of the elements greater than 6.5 at even positions.
entry filter_index (xs: []i32) : []i64 =
  filter (\i -> xs[i] > 6 && i % 2 == 0) (iota (length xs))
