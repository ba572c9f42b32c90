-- Slicing: a[i:j], a[i:], a[:j], strides, negative strides, and slices
-- mixed with indices per dimension on 2-D arrays.

-- ==
-- entry: basic
-- input { [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] 2i64 5i64 }
-- output { [2, 3, 4] [2, 3, 4, 5, 6, 7, 8, 9] [0, 1, 2, 3, 4] }
-- input { [0, 1, 2, 3] 2i64 2i64 }
-- output { empty([0]i32) [2, 3] [0, 1] }
-- input { [0, 1, 2, 3] 0i64 4i64 }
-- output { [0, 1, 2, 3] [0, 1, 2, 3] [0, 1, 2, 3] }

entry basic (xs: []i32) (i: i64) (j: i64) : ([]i32, []i32, []i32) =
  (xs[i:j], xs[i:], xs[:j])

-- ==
-- entry: strided
-- input { [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] }
-- output { [0, 2, 4, 6, 8] [1, 4, 7] [9, 8, 7, 6, 5, 4, 3, 2, 1, 0] [7, 5, 3] }

-- a[i:j:s]: positive stride; a[::-1] reverses; a[j:i:-2] walks down from j
-- and stops before i.
entry strided (xs: []i32) : ([]i32, []i32, []i32, []i32) =
  (xs[0:10:2], xs[1:9:3], xs[::-1], xs[7:1:-2])

-- ==
-- entry: slice_sum
-- input { [1.0f32, 2.0f32, 3.0f32, 4.0f32, 5.0f32] 1i64 4i64 } output { 9.0f32 }

-- A slice feeding a SOAC.
entry slice_sum (xs: []f32) (i: i64) (j: i64) : f32 =
  reduce (+) 0 xs[i:j]

-- ==
-- entry: sub_matrix
-- input { [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]] }
-- output { [[6, 7], [10, 11]] [5, 6, 7, 8] [3, 7, 11, 15] [[2, 4], [10, 12]] }

-- 2-D slices: m[1:3, 1:3], a row m[1, :], a column m[:, 2], strides in both
-- dimensions m[0:4:2, 1:4:2].
entry sub_matrix (m: [][]i32) : ([][]i32, []i32, []i32, [][]i32) =
  (m[1:3, 1:3], m[1, :], m[:, 2], m[0:4:2, 1:4:2])

-- ==
-- entry: three_d
-- input { [[[1, 2], [3, 4]], [[5, 6], [7, 8]]] }
-- output { [6, 8] [5, 6] [[3, 4], [7, 8]] }

-- Indexing two dimensions of a 3-D array gives a 1-D array.
entry three_d (t: [][][]i32) : ([]i32, []i32, [][]i32) =
  (t[1, :, 1], t[1, 0], t[:, 1])

-- ==
-- entry: slice_oob
-- input { [1, 2, 3] 1i64 5i64 } error: out of bounds
-- input { [1, 2, 3] 2i64 1i64 } error: out of bounds
-- input { [1, 2, 3] 1i64 3i64 } output { [2, 3] }

-- A slice outside the array is a run-time error.
entry slice_oob (xs: []i32) (i: i64) (j: i64) : []i32 =
  xs[i:j]

-- ==
-- entry: backwards_from
-- input { [1, 2, 3] 2i64 } output { [3, 2] }
-- input { [1, 2, 3] 3i64 } error: ^index 3:0:-1 out of bounds for array of length 3 at .*slices\.arr:\d+:\d+$
-- input { [1, 2, 3] 100000000i64 } error: out of bounds
-- input { [1, 2, 3] 0i64 } output { empty([0]i32) }

-- A backwards slice starts at its largest index, which must be in range.
entry backwards_from (xs: []i32) (i: i64) : []i32 =
  xs[i:0:-1]

-- ==
-- entry: backwards_columns
-- input { [[1, 2, 3], [4, 5, 6]] 2i64 } output { [[3, 2, 1], [6, 5, 4]] }
-- input { [[1, 2, 3], [4, 5, 6]] 4i64 } error: out of bounds

entry backwards_columns (m: [][]i32) (i: i64) : [][]i32 =
  m[:, i::-1]

-- ==
-- entry: strided_window
-- input { [1, 2, 3, 4] 0i64 4i64 } output { [1, 3] }
-- input { [1, 2, 3] 0i64 4i64 } output { [1, 3] }
-- input { [1, 2, 3] 1i64 4i64 } error: ^index 1:4:2 out of bounds for array of length 3
-- input { [1, 2, 3] 3i64 3i64 } output { empty([0]i32) }

-- Futhark's rule: the elements a slice selects lie inside the array; its
-- end may lie beyond the last of them.
entry strided_window (xs: []i32) (i: i64) (j: i64) : []i32 =
  xs[i:j:2]

-- ==
-- entry: column_of
-- input { [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]] 3i64 } output { [4, 9] }
-- input { [[1, 2], [3, 4], [5, 6]] 3i64 } error: ^index 3 out of bounds for array of length 2 at .*slices\.arr:\d+:\d+$
-- input { empty([2][0]i32) 0i64 } error: index 0 out of bounds for array of length 0
-- input { empty([0][2]i32) 1i64 } output { empty([0]i32) }

-- An index after a range is checked against its own dimension.
entry column_of (m: [][]i32) (j: i64) : []i32 = m[:, j]

-- ==
-- entry: middle_of
-- input { [[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10], [11, 12]]] 1i64 1i64 }
-- output { [8, 10, 12] }
-- input { [[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10], [11, 12]]] 1i64 2i64 }
-- error: index 2 out of bounds for array of length 2

entry middle_of (t: [][][]i32) (i: i64) (j: i64) : []i32 = t[i, :, j]

-- ==
-- entry: zero_stride
-- input { [1, 2, 3, 4] 0i64 3i64 0i64 }
-- error: ^index 0:3:0 out of bounds for array of length 4 at .*slices\.arr:\d+:\d+$
-- input { [1, 2, 3, 4, 5, 6] 1i64 1i64 0i64 }
-- error: ^index 0:3:0 out of bounds for array of length 3 at .*slices\.arr:\d+:\d+$
-- input { [1, 2, 3, 4] 3i64 0i64 -2i64 } output { [4, 2] }

-- A stride that is 0 at run time is a bad slice (Futhark's `Index [i:j:0]
-- out of bounds`), reported as one, not as a failed `assert`: with the
-- start and end it defaults to, also in a row of a `map`.
entry zero_stride (xs: []i32) (i: i64) (j: i64) (s: i64) : []i32 =
  if i == j then flatten (map (\r -> r[::s]) (unflatten 2 (length xs / 2) xs)) else xs[i:j:s]
