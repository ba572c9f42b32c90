-- reverse; rotate r xs puts xs[(i + r) mod n] at i for any r (negative,
-- larger than n); concat and ++ (sizes add up).

-- ==
-- entry: rev
-- input { [1, 2, 3] } output { [3, 2, 1] }
-- input { empty([0]i32) } output { empty([0]i32) }
-- input { [[1, 2], [3, 4]] } error: argument 1

entry rev (xs: []i32) : []i32 = reverse xs

-- ==
-- entry: rev2d
-- input { [[1, 2], [3, 4], [5, 6]] } output { [[5, 6], [3, 4], [1, 2]] }

-- reverse on a 2-D array reverses the rows, not their contents.
entry rev2d (m: [][]i32) : [][]i32 = reverse m

-- ==
-- entry: rot
-- input { 1i64 [1, 2, 3, 4, 5] } output { [2, 3, 4, 5, 1] }
-- input { -1i64 [1, 2, 3, 4, 5] } output { [5, 1, 2, 3, 4] }
-- input { 7i64 [1, 2, 3, 4, 5] } output { [3, 4, 5, 1, 2] }
-- input { -12i64 [1, 2, 3, 4, 5] } output { [4, 5, 1, 2, 3] }
-- input { 0i64 [1, 2, 3, 4, 5] } output { [1, 2, 3, 4, 5] }
-- input { 5i64 [1, 2, 3, 4, 5] } output { [1, 2, 3, 4, 5] }
-- input { 3i64 empty([0]i32) } output { empty([0]i32) }

entry rot (r: i64) (xs: []i32) : []i32 = rotate r xs

-- ==
-- entry: rot2d
-- input { [[1, 2], [3, 4], [5, 6]] } output { [[3, 4], [5, 6], [1, 2]] }

-- rotate on a 2-D array rotates the rows.
entry rot2d (m: [][]i32) : [][]i32 = rotate 1 m

-- ==
-- entry: cat
-- input { [1, 2] [3, 4, 5] } output { [1, 2, 3, 4, 5] [1, 2, 3, 4, 5] 5i64 }
-- input { empty([0]i32) [3] } output { [3] [3] 1i64 }

entry cat (xs: []i32) (ys: []i32) : ([]i32, []i32, i64) =
  (concat xs ys, xs ++ ys, length (xs ++ ys))

-- ==
-- entry: cat2d
-- input { [[1, 2]] [[3, 4], [5, 6]] } output { [[1, 2], [3, 4], [5, 6]] }
-- input { [[1, 2]] [[3, 4, 5]] } error: size mismatch

-- Concatenating 2-D arrays needs equal row lengths (checked at run time).
entry cat2d (a: [][]i32) (b: [][]i32) : [][]i32 = a ++ b

-- ==
-- entry: cat_map
-- input { [1.0f32] [2.0f32, 3.0f32] } output { [2.0f32, 4.0f32, 6.0f32] }

-- The concatenation's size is only known at run time; map2 with a
-- concatenation of the same arrays agrees.
entry cat_map (xs: []f32) (ys: []f32) : []f32 =
  map2 (+) (xs ++ ys) (concat xs ys)

-- ==
-- entry: rev_rot_compose
-- input { [1, 2, 3, 4] } output { [3, 2, 1, 4] }

-- rotate 1 (reverse xs) = [3, 2, 1, 4].
entry rev_rot_compose (xs: []i32) : []i32 = rotate 1 (reverse xs)

-- ==
-- entry: concat_prec
-- input { [1, 2] [3] } output { [1, 2, 3, 4] }

-- `++` is at the level of `+`.
entry concat_prec (xs: []i32) (ys: []i32) : []i32 =
  xs ++ ys ++ [1 + 3]
