-- `a with [i] = v`: a copy with one element replaced; value semantics;
-- 2-D updates; out of range is a run-time error (unlike scatter).

-- ==
-- entry: update
-- input { [1, 2, 3] 1i64 9 } output { [1, 9, 3] [1, 2, 3] }
-- input { [1, 2, 3] 0i64 -5 } output { [-5, 2, 3] [1, 2, 3] }
-- input { [1, 2, 3] 3i64 9 } error: index 3 out of bounds
-- input { [1, 2, 3] -1i64 9 } error: index -1 out of bounds

-- The original array is unchanged (value semantics).
entry update (xs: []i32) (i: i64) (v: i32) : ([]i32, []i32) =
  let ys = xs with [i] = v
  in (ys, xs)

-- ==
-- entry: update2d
-- input { [[1, 2], [3, 4]] 1i64 0i64 7 } output { [[1, 2], [7, 4]] 3 }
-- input { [[1, 2], [3, 4]] 0i64 2i64 7 } error: out of bounds

-- `a with [i, j] = v` on a 2-D array; the old value read afterwards.
entry update2d (m: [][]i32) (i: i64) (j: i64) (v: i32) : ([][]i32, i32) =
  let m2 = m with [i, j] = v
  in (m2, m[i, j])

-- ==
-- entry: row_update
-- input { [[1, 2], [3, 4]] [8, 9] } output { [[8, 9], [3, 4]] }
-- input { [[1, 2], [3, 4]] [8, 9, 10] } error: size mismatch

-- Replacing a whole row of a 2-D array.
entry row_update [n][m] (a: [n][m]i32) (r: []i32) : [n][m]i32 =
  a with [0] = r

-- ==
-- entry: chain
-- input { 4i64 } output { [10, 0, 30, 40] }

-- Several updates in a row, each on the previous result.
entry chain (n: i64) : []i32 =
  let a = replicate n 0
  let a = a with [0] = 10
  let a = a with [2] = 30
  let a = a with [3] = 40
  in a

-- ==
-- entry: swap
-- input { [1.5, 2.5, 3.5] 0i64 2i64 } output { [3.5, 2.5, 1.5] }

-- Swap two elements, reading both before writing.
entry swap (xs: []f64) (i: i64) (j: i64) : []f64 =
  let a = xs[i]
  let b = xs[j]
  in (xs with [i] = b) with [j] = a
