-- Updating a slice (Futhark's `a with [i:j] = v`): every index form, a
-- stride, a fixed row, a block of rows and columns, and `let a[i:j] = v`.

-- ==
-- input { [0, 1, 2, 3, 4, 5] [[1, 2, 3], [4, 5, 6], [7, 8, 9]] }
-- output { [0, 9, 9, 3, 4, 5] [7, 1, 7, 3, 7, 5] [[1, 2, 3], [4, 0, 0], [7, 8, 9]] [[1, 2, 3], [4, -1, 6], [7, -2, 9]] [1, 2, 8, 9, 4, 5] }
entry main (xs: []i32) (m: [][]i32) =
  let a = xs with [1:3] = [9, 9]
  let b = xs with [::2] = [7, 7, 7]
  let c = m with [1, 1:] = [0, 0]
  let d = m with [1:, 1] = [-1, -2]
  let e = copy xs
  let e[2:4] = [8, 9]
  let e[0:2] = map (+ 1) e[0:2]
  in (a, b, c, d, e)

-- A slice of the wrong length is an error.
-- ==
-- entry: wrong
-- input { [1, 2, 3] }
-- error: .
entry wrong (xs: []i32) : []i32 = xs with [0:2] = [1, 2, 3]
