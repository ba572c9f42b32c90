-- Look-back scans and compactions that read their inputs at the iteration
-- index: on a GPU each tile of those inputs is loaded into shared memory
-- once, coalesced, and both passes of the tile read it there (docs/gpu.md,
-- "Look-back scans"). Inputs of several element sizes at once, reads past
-- an input's end (the bounds check still fails, in the right iteration),
-- a neighbour's read (not staged), and non-commutative operators.

-- ==
-- entry: mixed
-- input { [1i64, -2i64, 3i64] [true, false, true] [0.5f64, 1.5f64, -2.0f64] [1i8, 2i8, 3i8] }
-- output { [1i64, 3i64, 6i64] [0.5f64, 1.5f64, 1.5f64] [1i8, 3i8, 6i8] }
-- random input { [5000]i64 [5000]bool [5000]f64 [5000]i8 } auto output
-- random input { [70]i64 [70]bool [70]f64 [70]i8 } auto output

-- A sum of values picked by flags, a running maximum and a wrapping i8
-- sum: four inputs of 8, 1, 8 and 1 bytes.
entry mixed [n] (xs: [n]i64) (bs: [n]bool) (fs: [n]f64) (ks: [n]i8) : ([n]i64, [n]f64, [n]i8) =
  let ys = scan (+) 0 (map3 (\x b k -> if b then x else i64.i8 k) xs bs ks)
  let ms = scan f64.max (-f64.inf) fs
  let ss = scan (+) 0 ks
  in (ys, ms, ss)

-- ==
-- entry: past_end
-- input { 3i64 [5i64, 6i64, 7i64] } output { [10i64, 22i64, 36i64] }
-- input { 4i64 [5i64, 6i64, 7i64] } error: ^index 3 out of bounds for array of length 3 at .*scan_staged\.arr:32:
-- random input { 5000i64 [5000]i64 } auto output
-- random input { 5000i64 [4321]i64 } error: ^index 4321 out of bounds for array of length 4321 at .*scan_staged\.arr:32:

-- A scan over `n` iterations of an input that may be shorter.
entry past_end (n: i64) (xs: []i64) : []i64 =
  scan (+) 0 (map (\i -> xs[i] * 2) (iota n))

-- ==
-- entry: neighbours
-- input { [1i32, 2i32, 3i32, 4i32] } output { [3i32, 8i32, 15i32, 19i32] }
-- random input { [6000]i32 } auto output

-- Each element plus the next (a neighbour read stays a global read) in a
-- scan of affine maps composed in order (not commutative).
entry neighbours [n] (xs: [n]i32) : [n]i32 =
  let ys = map (\i -> xs[i] + (if i + 1 < n then xs[i + 1] else 0)) (iota n)
  in map (.1) (scan (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1i32, 0i32) (zip (map (\_ -> 1i32) ys) ys))

-- ==
-- entry: keep_odd
-- input { [1i64, 2i64, 3i64, 5i64] [0.5f32, 1.0f32, 2.0f32, 4.0f32] } output { [1i64, 3i64, 5i64] 6.5f32 }
-- random input { [7000]i64 [7000]f32 } auto output

-- A filter of one input, with a sum of another beside it.
entry keep_odd [n] (xs: [n]i64) (fs: [n]f32) : ([]i64, f32) =
  let kept = filter (\x -> x % 2 != 0) xs
  in (kept, reduce (+) 0 (map2 (\x f -> if x % 2 != 0 then f else 0) xs fs))

-- ==
-- entry: affine_all
-- input { 3i64 [2i32, 3i32, 1i32] [1i32, 0i32, 5i32] } output { 6i32 8i32 }
-- input { 0i64 empty([0]i32) empty([0]i32) } output { 1i32 0i32 }
-- random input { 6000i64 [6000]i32 [6000]i32 } auto output
-- random input { 6000i64 [5000]i32 [6000]i32 } error: ^index 5000 out of bounds for array of length 5000 at .*scan_staged\.arr:66:

-- A reduction composing affine maps in order (not commutative) over
-- inputs read at the index: coalesced tiles on a GPU; one input may be
-- shorter than the iterations.
entry affine_all (n: i64) (as: []i32) (bs: []i32) : (i32, i32) =
  reduce (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1i32, 0i32) (map (\i -> (as[i], bs[i])) (iota n))
