-- Indexing by loop indices: `loopy::bounds` drops a check when the index
-- runs over exactly that dimension of the array (the same size), and
-- keeps it otherwise, so these out-of-range indices still stop the
-- program with their location.

-- ==
-- entry: in_range
-- input { [[1, 2, 3], [4, 5, 6]] } output { [[1, 4], [2, 5], [3, 6]] 21 }
-- input { empty([0][2]i32) } output { empty([2][0]i32) 0 }
-- random input { [23][41]i32 }

-- Every index is an enclosing loop's index over that very dimension.
entry in_range [r] [c] (m: [r][c]i32) : ([c][r]i32, i32) =
  let t = map (\i -> map (\j -> m[j][i]) (iota r)) (iota c)
  let s = loop acc = 0 for j < r do
            loop acc' = acc for i < c do acc' + m[j][i]
  in (t, s)

-- ==
-- entry: one_too_far
-- input { [[1, 2, 3], [4, 5, 6]] }
-- error: index 2 out of bounds for array of length 2 at .*loop_bound_checks.arr:26:52

-- The inner index runs over r + 1 values, one more than m has rows.
entry one_too_far [r] [c] (m: [r][c]i32) : [c][r]i32 =
  map (\i -> map (\j -> if j < r then m[j][i] else m[j][i])
                 (iota (r + 1)) |> take r) (iota c)

-- ==
-- entry: other_size
-- input { [[1, 2], [3, 4]] 2i64 } output { [1, 3] }
-- input { [[1, 2], [3, 4]] 3i64 }
-- error: index 2 out of bounds for array of length 2 at .*loop_bound_checks.arr:37:14

-- The loop runs to a size unrelated to m's.
entry other_size [r] [c] (m: [r][c]i32) (n: i64) : []i32 =
  map (\j -> m[j][0]) (iota n)

-- ==
-- entry: slices_of_rows
-- input { [[1, 2, 3], [4, 5, 6]] 2i64 }
-- output { [[1, 2], [4, 5]] [[2, 3], [5, 6]] [[1, 1], [4, 4]] }
-- input { [[1, 2, 3], [4, 5, 6]] 0i64 }
-- output { empty([2][0]i32) [[2, 3], [5, 6]] empty([2][0]i32) }
-- input { empty([0][3]i32) 2i64 }
-- output { empty([0][2]i32) empty([0][2]i32) empty([0][2]i32) }
-- input { [[1, 2, 3], [4, 5, 6]] 4i64 }
-- error: index 0:4:1 out of bounds for array of length 3

-- Rows sliced in a map: the rows' length is computed in the loop body,
-- and the result is allocated before the loop with a copy of that
-- computation (it was a compile error before).
entry slices_of_rows [n] [m] (xs: [n][m]i32) (k: i64) : ([n][k]i32, [n][2]i32, [n][k]i32) =
  (map (\r -> take k r) xs,
   map (\r -> r[1:3]) xs,
   map (\r -> replicate (k + 1) r[0] |> take k) xs)
