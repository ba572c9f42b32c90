-- Run-time errors of the operations added in issue 3: `with` out of range
-- (an error, unlike scatter), unflatten with a wrong size, slices out of
-- range, and the exact location inside an inlined function.

def put (xs: []i32) (i: i64) : []i32 =
  xs with [i] = 0

-- ==
-- entry: with_oob
-- input { [1, 2, 3] 3i64 } error: index 3 out of bounds

entry with_oob (xs: []i32) (i: i64) : []i32 = xs with [i] = 0

-- ==
-- entry: unflatten_size
-- input { [1, 2, 3, 4, 5] } error: size mismatch

entry unflatten_size (xs: []i32) : [][]i32 = unflatten 2 2 xs

-- ==
-- entry: with_inlined
-- input { [1, 2, 3] 7i64 } error: index 7 out of bounds for array of length 3 at .*runtime_errors_ops\.arr:6:3
-- input { [1, 2, 3] 2i64 } output { [1, 2, 0] }

entry with_inlined (xs: []i32) (i: i64) : []i32 = put xs i

-- ==
-- entry: unflatten_ok
-- input { [1, 2, 3, 4] } output { [[1, 2], [3, 4]] }
-- input { [1, 2, 3, 4, 5, 6] } error: size mismatch.* at .*runtime_errors_ops\.arr:33:3

entry unflatten_ok (xs: []i32) : [][]i32 =
  unflatten 2 2 xs

-- ==
-- entry: loop_index
-- input { [1, 2, 3] } error: index 3 out of bounds for array of length 3

-- An off-by-one in a loop body.
entry loop_index (xs: []i32) : i32 =
  loop acc = 0 for i < length xs + 1 do acc + xs[i]

-- ==
-- entry: slice_oob
-- input { [1, 2, 3] 4i64 } error: out of bounds.* at .*runtime_errors_ops\.arr:49:3
-- input { [1, 2, 3] 3i64 } output { [1, 2, 3] }

entry slice_oob (xs: []i32) (j: i64) : []i32 =
  xs[0:j]
