-- Futhark's syntax: right sections whose operand is a whole expression,
-- qualified operator sections, `if` as an index, several size binders in
-- one `let`.

-- ==
-- entry: sections
-- input { [1, 2, 3] 2i64 }
-- output { [3, 6, 9] [3, 4, 5] [-1, 0, 1] 3 }
entry sections (xs: []i32) (i: i64) : ([]i32, []i32, []i32, i32) =
  (map (* i32.i64 i + 1) xs, map (i32.+ 2) xs, map (i32.- 2) xs, xs[if i > 1 then 2 else 0])

-- ==
-- entry: sizes
-- input { [[1, 2, 3], [4, 5, 6]] }
-- output { 2i64 3i64 }
entry sizes (a: [][]i32) : (i64, i64) =
  let [n][m] (b: [n][m]i32) = a
  in (n, m)
