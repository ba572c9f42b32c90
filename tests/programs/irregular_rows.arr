-- Maps whose rows have sizes computed per row: `iota x`, `replicate x`, a
-- filter of each row, slices with a variable stride or bounds. Arrays are
-- regular, so such a map succeeds when every row comes out the same size
-- and stops with a size mismatch at the map otherwise. The compiled
-- program allocates the result with row 0's size, computed ahead of the
-- loop, and checks every row against it (these failed to compile before).

-- ==
-- entry: iotas
-- input { [3i64, 3i64] } output { [[0i64, 1i64, 2i64], [0i64, 1i64, 2i64]] }
-- input { [0i64, 0i64, 0i64] } output { empty([3][0]i64) }
-- input { empty([0]i64) } output { empty([0][0]i64) }
-- input { [3i64, 2i64] } error: ^size mismatch: 3 and 2 at .*irregular_rows\.arr:17:3$
-- input { [2i64, 2i64, 2i64, 5i64] } error: size mismatch: 2 and 5

entry iotas (xs: []i64) : [][]i64 =
  map (\x -> iota x) xs

-- ==
-- entry: replicated
-- input { [2i64, 2i64] [1.5f32, 2.5f32] }
-- output { [[1.5f32, 1.5f32], [2.5f32, 2.5f32]] }
-- input { [2i64, 1i64] [1.5f32, 2.5f32] } error: size mismatch: 2 and 1

entry replicated (ns: []i64) (vs: []f32) : [][]f32 =
  map2 (\n v -> replicate n v) ns vs

-- ==
-- entry: positives
-- input { [[1, -2, 3], [4, 5, -1]] } output { [[1, 3], [4, 5]] }
-- input { [[-1, -2], [-3, -4]] } output { empty([2][0]i32) }
-- input { empty([0][4]i32) } output { empty([0][0]i32) }
-- input { [[1, -2, 3], [4, 5, 1]] } error: size mismatch: 2 and 3 at .*irregular_rows\.arr:36:3

entry positives (rows: [][]i32) : [][]i32 =
  map (\r -> filter (\v -> v > 0) r) rows

-- ==
-- entry: strided
-- input { 2i64 [[1, 2, 3], [4, 5, 6]] } output { [[1, 3], [4, 6]] }
-- input { -1i64 [[1, 2, 3], [4, 5, 6]] } output { [[3, 2, 1], [6, 5, 4]] }
-- input { 5i64 [[1, 2, 3], [4, 5, 6]] } output { [[1], [4]] }
-- input { 0i64 [[1, 2, 3], [4, 5, 6]] } error: index 0:3:0 out of bounds
-- input { 0i64 empty([0][3]i32) } output { empty([0][0]i32) }

entry strided (k: i64) (xs: [][]i32) : [][]i32 =
  map (\r -> r[::k]) xs

-- ==
-- entry: windows
-- input { [0i64, 2i64] 2i64 [10, 11, 12, 13, 14] }
-- output { [[10, 11], [12, 13]] }
-- input { [0i64, 4i64] 2i64 [10, 11, 12, 13, 14] }
-- error: out of bounds

entry windows (starts: []i64) (w: i64) (xs: []i32) : [][]i32 =
  map (\s -> xs[s:s+w]) starts

-- ==
-- entry: nested
-- input { [[2i64, 2i64], [2i64, 2i64]] }
-- output { [[[0i64, 1i64], [0i64, 1i64]], [[0i64, 1i64], [0i64, 1i64]]] }
-- input { [[2i64, 2i64], [2i64, 1i64]] } error: size mismatch: 2 and 1
-- input { [[1i64], [1i64], [1i64]] } output { [[[0i64]], [[0i64]], [[0i64]]] }

entry nested (xss: [][]i64) : [][][]i64 =
  map (\xs -> map (\x -> iota x) xs) xss

-- ==
-- entry: summed_and_kept
-- input { [[1, -2, 3], [4, 5, -1]] } output { [2, 8] [[1, 3], [4, 5]] }

entry summed_and_kept (rows: [][]i32) : ([]i32, [][]i32) =
  unzip (map (\r -> (reduce (+) 0 r, filter (\v -> v > 0) r)) rows)

-- ==
-- entry: used_after
-- input { [4i64, 4i64, 4i64] } output { [10i64, 10i64, 10i64] }
-- random input { [100]i64 } error: size mismatch

entry used_after (xs: []i64) : []i64 =
  let ys = map (\x -> iota (x % 7 + 1)) xs
  in map (\r -> reduce (+) 0 r) ys

-- ==
-- entry: branchy
-- input { [1i64, 2i64] } output { [[0i64, 1i64], [0i64, 1i64]] }
-- input { [1i64, -2i64] } error: size mismatch: 2 and 3

entry branchy (xs: []i64) : [][]i64 =
  map (\x -> if x > 0 then iota 2 else iota 3) xs

-- ==
-- entry: grown_in_a_loop
-- input { [2i64, 2i64] } output { [[0i64, 0i64, 1i64], [0i64, 0i64, 1i64]] }
-- input { [2i64, 3i64] } error: size mismatch: 3 and 4

entry grown_in_a_loop (xs: []i64) : [][]i64 =
  map (\x -> loop acc = iota 1 for i < x do acc ++ [i]) xs

-- ==
-- entry: parts
-- input { [[1, -2], [3, -4]] } output { [[1], [3]] [[-2], [-4]] }
-- input { [[1, -2], [3, 4]] } error: size mismatch: 1 and 2

entry parts (rows: [][]i32) : ([][]i32, [][]i32) =
  unzip (map (\r -> partition (\v -> v > 0) r) rows)

-- ==
-- entry: tables
-- input { [2i64, 2i64] }
-- output { [[[0i64, 1i64], [1i64, 2i64]], [[0i64, 1i64], [1i64, 2i64]]] }
-- input { [2i64, 1i64] } error: size mismatch: 2 and 1

entry tables (xs: []i64) : [][][]i64 =
  map (\x -> tabulate_2d x 2 (\i j -> i + j)) xs

-- ==
-- entry: flattened
-- input { [2i64, 2i64, 2i64] } output { [0i64, 1i64, 0i64, 1i64, 0i64, 1i64] }
-- input { [2i64, 1i64] } error: size mismatch: 2 and 1

entry flattened (xs: []i64) : []i64 =
  flatten (map (\x -> iota x) xs)

-- ==
-- entry: sliding
-- input { [1, 2, 3] 2i64 2i64 } output { [[1, 2], [2, 3]] }
-- input { [1, 2, 3] 0i64 4i64 } output { empty([4][0]i32) }
-- input { [1, 2, 3] 2i64 3i64 } error: out of bounds

-- A window's length, `(i + k) - i`, is computed from the row's index.
entry sliding (xs: []i32) (k: i64) (n: i64) : [][]i32 =
  map (\i -> xs[i:i+k]) (iota n)

-- ==
-- entry: guarded_sizes
-- input { [2i64, 2i64] } output { [[0i64, 1i64, 2i64, 3i64, 4i64], [0i64, 1i64, 2i64, 3i64, 4i64]] }
-- input { [2i64, 3i64] } error: size mismatch: 5 and 3
-- input { [0i64] } error: ^assertion failed at .*irregular_rows\.arr:\d+:14: Assertion is false: x > 0$
-- input { [-1i64, 0i64] } error: ^assertion failed

-- Row 0 runs ahead for its size, and stops with the error the loop would
-- stop with first: the assertion, not the division or the negative size.
entry guarded_sizes (xs: []i64) : [][]i64 =
  map (\x -> assert (x > 0) (iota (10 / x))) xs

-- ==
-- entry: cut
-- input { [[1, 2, 3]] 0i64 } error: ^index 1:0:1 out of bounds
-- input { empty([0][3]i32) 0i64 } output { empty([0][0]i32) }
-- input { [[1, 2, 3], [4, 5, 6]] 2i64 } output { [[2], [5]] }

-- A slice's length, computed before the loop, may be negative where the
-- slice is out of bounds: nothing is allocated, row 0 reports it.
entry cut (m: [][]i32) (k: i64) : [][]i32 = map (\r -> r[1:k]) m

-- ==
-- entry: stepped
-- input { empty([0][5]i32) } output { empty([0][5]i32) }
-- input { [[1, 2], [3, 4]] } output { [[4, 5], [6, 7]] }

-- A loop whose array keeps its shape: the rows' size is known before the
-- map, also when there are no rows.
entry stepped [n] [k] (m: [n][k]i32) : [n][k]i32 =
  map (\r -> loop r' = r for _i < 3 do map (+1) r') m

-- ==
-- entry: transposed_by_index
-- input { empty([5][0]i32) } output { empty([0][5]i32) }
-- input { [[1, 2], [3, 4]] } output { [[1, 3], [2, 4]] }

-- A map over no rows still has the rows' shape (the interpreter finds it
-- by a trial run that reads zeros where an index is out of range).
entry transposed_by_index [n] [k] (m: [n][k]i32) : [k][n]i32 =
  map (\j -> map (\i -> m[i][j]) (iota n)) (iota k)
