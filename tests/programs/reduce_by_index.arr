-- reduce_by_index dest op ne is vs: like hist, into an existing array (the
-- destination's values are combined too); out-of-range indices ignored.

-- ==
-- entry: add_into
-- input { [10, 20, 30] [0i64, 2i64, 2i64, 5i64] [1, 2, 3, 4] } output { [11, 20, 35] }
-- input { [10, 20, 30] empty([0]i64) empty([0]i32) } output { [10, 20, 30] }
-- input { [10, 20, 30] [-1i64] [1] } output { [10, 20, 30] }
-- input { [10, 20, 30] [0i64, 1i64] [1] } error: size mismatch

entry add_into (dest: []i32) (is: []i64) (vs: []i32) : []i32 =
  reduce_by_index dest (+) 0 is vs

-- ==
-- entry: min_into
-- input { [5, 5, 5] [0i64, 1i64, 1i64] [7, 3, 9] } output { [5, 3, 5] }

entry min_into (dest: []i32) (is: []i64) (vs: []i32) : []i32 =
  reduce_by_index dest i32.min i32.highest is vs

-- ==
-- entry: value_semantics
-- input { [1.0f32, 2.0f32] } output { [1.0f32, 4.0f32] [1.0f32, 2.0f32] }

-- The destination array itself is unchanged.
entry value_semantics (xs: []f32) : ([]f32, []f32) =
  (reduce_by_index xs (+) 0 [1, 1] [1, 1], xs)

-- ==
-- entry: rows
-- input { [[0, 0], [0, 0]] [1i64, 1i64, 0i64] [[1, 2], [3, 4], [5, 6]] } output { [[5, 6], [4, 6]] }

-- Array-valued elements, combined with an elementwise operator.
entry rows [k] (dest: [][k]i32) (is: []i64) (vs: [][k]i32) : [][k]i32 =
  reduce_by_index dest (map2 (+)) (replicate k 0) is vs
