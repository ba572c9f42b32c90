-- A nest's rows whose size is computed outside it (`k + 1`, hoisted out of
-- the map's function) and checked inside it, at the `replicate`: the
-- output is allocated before the nest, so its size is clamped at 0 there
-- and row 0's own check reports a negative size (the interpreter's first
-- error), where the allocation failed with `out of memory`; a map over
-- no rows gives rows of size 0, as the interpreter's trial run does.

-- ==
-- entry: map_rep
-- input { 3i64 -3i64 } error: ^negative size -2 at .*nest_negative_row_size\.arr:16:14$
-- input { 0i64 -3i64 } output { empty([0][0]i32) }
-- input { 2i64 1i64 } output { [[0i32, 0i32], [1i32, 1i32]] }
-- input { 0i64 2i64 } output { empty([0][3]i32) }

entry map_rep (n: i64) (k: i64) : [][]i32 =
  map (\i -> replicate (k + 1) (i32.i64 i)) (iota n)

-- ==
-- entry: map_scan
-- input { 3i64 -3i64 } error: ^negative size -2 at .*nest_negative_row_size\.arr:26:26$
-- input { 0i64 -3i64 } output { empty([0][0]i64) }
-- input { 2i64 1i64 } output { [[0i64, 0i64], [1i64, 2i64]] }
-- input { 0i64 2i64 } output { empty([0][3]i64) }

entry map_scan (n: i64) (k: i64) : [][]i64 =
  map (\i -> scan (+) 0 (replicate (k + 1) i)) (iota n)

-- The row exists before the outer replicate: its check comes first even
-- without rows.
-- ==
-- entry: rep_rows
-- input { 3i64 -3i64 } error: ^negative size -2 at .*nest_negative_row_size\.arr:38:16$
-- input { 0i64 -3i64 } error: ^negative size -2 at .*nest_negative_row_size\.arr:38:16$
-- input { 2i64 1i64 } output { [[7i32, 7i32], [7i32, 7i32]] }
-- input { 0i64 2i64 } output { empty([0][3]i32) }

entry rep_rows (n: i64) (k: i64) : [][]i32 =
  replicate n (replicate (k + 1) 7)

-- ==
-- entry: tab
-- input { 3i64 -3i64 } error: ^Range 0\.\.1\.\.<-2 is invalid at .*nest_negative_row_size\.arr:48:21$
-- input { 0i64 -3i64 } output { empty([0][0]i64) }
-- input { 2i64 1i64 } output { [[0i64, 0i64], [0i64, 1i64]] }
-- input { 0i64 2i64 } output { empty([0][3]i64) }

entry tab (n: i64) (k: i64) : [][]i64 =
  tabulate n (\i -> tabulate (k + 1) (\j -> i * j))

-- ==
-- entry: iota_rows
-- input { 3i64 -3i64 } error: ^Range 0\.\.1\.\.<-2 is invalid at .*nest_negative_row_size\.arr:58:25$
-- input { 0i64 -3i64 } output { empty([0][0]i64) }
-- input { 2i64 1i64 } output { [[0i64, 1i64], [1i64, 2i64]] }
-- input { 0i64 2i64 } output { empty([0][3]i64) }

entry iota_rows (n: i64) (k: i64) : [][]i64 =
  map (\i -> map (+ i) (iota (k + 1))) (iota n)

-- Two deep: the inner nest's rows are allocated in each outer iteration.
-- ==
-- entry: nested2
-- input { 3i64 2i64 -3i64 } error: ^negative size -2 at .*nest_negative_row_size\.arr:71:25$
-- input { 0i64 2i64 -3i64 } output { empty([0][2][0]i64) }
-- input { 2i64 0i64 -3i64 } output { empty([2][0][0]i64) }
-- input { 0i64 0i64 -3i64 } output { empty([0][0][0]i64) }
-- input { 2i64 2i64 1i64 } output { [[[0i64, 0i64], [1i64, 1i64]], [[1i64, 1i64], [2i64, 2i64]]] }
-- input { 0i64 2i64 1i64 } output { empty([0][2][2]i64) }

entry nested2 (n: i64) (m: i64) (k: i64) : [][][]i64 =
  map (\i -> map (\j -> replicate (k + 1) (i + j)) (iota m)) (iota n)

-- A later array of the same size, outside the nest: the nest's rows prove
-- nothing about `k + 1` when there were none, so its own check runs.
-- ==
-- entry: after_nest
-- input { 0i64 -3i64 } error: ^negative size -2 at .*nest_negative_row_size\.arr:83:11$
-- input { 2i64 -3i64 } error: ^negative size -2
-- input { 2i64 1i64 } output { [[0i64, 0i64], [1i64, 1i64]] [0i64, 0i64] }

entry after_nest (n: i64) (k: i64) : ([][]i64, []i64) =
  let a = map (\i -> replicate (k + 1) i) (iota n)
  let b = replicate (k + 1) 0i64
  in (a, b)
