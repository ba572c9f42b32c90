-- `a with [i] = v` updates in place when `a` is dead (section 4) and keeps
-- value semantics otherwise (section 10). Expected values worked out by hand.

-- ==
-- entry: build
-- input { 5i64 } output { 0i64 8i64 20i64 }
-- input { 100000i64 } output { 0i64 199998i64 9999900000i64 }

-- A loop-carried array updated once per iteration: O(n) when in place.
entry build (n: i64) : (i64, i64, i64) =
  let xs = loop xs = replicate n 0i64 for i < n do xs with [i] = i * 2
  in (xs[0], xs[n - 1], reduce (+) 0 xs)

-- ==
-- entry: small
-- input { 4i64 } output { [0i64, 1i64, 4i64, 9i64] }

entry small (n: i64) : []i64 =
  loop xs = replicate n 0i64 for i < n do xs with [i] = i * i

-- ==
-- entry: keep
-- input { [1, 2, 3] } output { [2, 3, 4] [9, 3, 4] }

-- The old array is a result: the update must copy.
entry keep (xs: []i32) : ([]i32, []i32) =
  let a = map (+ 1) xs
  let b = a with [0] = 9
  in (a, b)

-- ==
-- entry: view_kept
-- input { 5i64 } output { [0i64, 100i64, 2i64, 3i64, 4i64] [1i64, 2i64] }

-- A slice of the old array is used later: it shares memory, so copy.
entry view_kept (n: i64) : ([]i64, []i64) =
  let a = iota n
  let v = a[1:3]
  let b = a with [1] = 100
  in (b, v)

-- ==
-- entry: branch_kept
-- input { [1, 2, 3] true } output { [0, 3, 4] [2, 3, 4] }
-- input { [1, 2, 3] false } output { [0, 3, 4] [1, 2, 3] }

-- An `if` result that may be the old array is used later.
entry branch_kept (xs: []i32) (c: bool) : ([]i32, []i32) =
  let a = map (+ 1) xs
  let v = if c then a else xs
  let b = a with [0] = 0
  in (b, v)

-- ==
-- entry: param
-- input { [1, 2, 3] } output { [2, 4, 6] [1, 2, 3] [0, 2, 3] }

-- Entry parameters belong to the caller: never updated in place.
entry param (xs: []i32) : ([]i32, []i32, []i32) =
  let ys = loop ys = xs for i < length xs do ys with [i] = ys[i] * 2
  let zs = xs with [0] = 0
  in (ys, xs, zs)

-- ==
-- entry: grid
-- input { 2i64 3i64 } output { [[0i64, 1i64, 2i64], [10i64, 11i64, 12i64]] }

-- `with [i, j]` on a 2-D array carried by nested loops.
entry grid (n: i64) (m: i64) : [][]i64 =
  loop g = replicate n (replicate m 0i64) for i < n do
    loop g for j < m do g with [i, j] = i * 10 + j

-- ==
-- entry: rows
-- input { 3i64 } output { [[1i64, 1i64], [0i64, 0i64], [1i64, 1i64]] }

-- A row replaced by another row of the same array.
entry rows (n: i64) : [][]i64 =
  let a = replicate n (replicate 2 0i64)
  let a = a with [0] = replicate 2 1i64
  in a with [2] = a[0]

-- ==
-- entry: chain
-- input { 4i64 } output { [10, 0, 30, 40] }

entry chain (n: i64) : []i32 =
  let a = replicate n 0
  let a = a with [0] = 10
  let a = a with [2] = 30
  let a = a with [3] = 40
  in a

-- ==
-- entry: scatter_dead
-- input { [0i64, 2i64, 7i64] [5, 6, 7] } output { [5, 0, 6, 0] }

entry scatter_dead (is: []i64) (vs: []i32) : []i32 =
  scatter (replicate 4 0) is vs

-- ==
-- entry: oob
-- input { 3i64 0i64 } output { [1, 1, 1] }
-- input { 3i64 1i64 } error: ^index 3 out of bounds for array of length 3 at .*with_inplace\.arr:108:39$

-- Out of range inside the loop: the same error as a copying update.
entry oob (n: i64) (k: i64) : []i32 =
  loop a = replicate n 0 for i < n do a with [i + k] = 1
