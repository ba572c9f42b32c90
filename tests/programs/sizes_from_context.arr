-- Sizes that Futhark's size unification finds and arrc reads off the
-- program: `unflatten xs` where the size of `xs` is a product through a
-- slice update, a call, `flatten` or `tabulate`, and `rep x` whose size is
-- that of the array beside it or of the type it is ascribed
-- (hashcat, bfast, knn-by-kdtree and removeDuplicates in futhark-benchmarks).

def padded [nm] (n: i64) (a: *[nm]f32) : [nm]f32 = map (+ f32.i64 n) a

def twice (n: i64) (m: i64) (a: [n * m]f32) : [n * m]f32 = map (* 2) a

def regrid [m] [k] (a: [m][k]i32) (i: i64) =
  let flat = scatter (flatten a) [i] [0]
  in unflatten flat

-- ==
-- entry: products
-- input { 2i64 } output { [1u8, 0u8, 0u8, 0u8] [[2.0f32, 3.0f32, 4.0f32], [5.0f32, 6.0f32, 7.0f32]] [[0.0f32, 2.0f32], [4.0f32, 6.0f32], [8.0f32, 10.0f32]] [[1, 0], [3, 4]] [[0i64, 1i64, 2i64], [3i64, 4i64, 5i64]] }

entry products (k: i64) =
  let block = replicate (4 * 4) 0u8
  let block[0:k] = replicate k 1u8
  let rows = map (\r -> r[0]) (unflatten block)
  let m = 3
  let a = map f32.i64 (iota (k * m))
  let a' = unflatten (padded k a)
  let b = unflatten (twice m k (map f32.i64 (iota (m * k))))
  in (rows[0:4], a', b, regrid [[1, 2], [3, 4]] 1, unflatten (tabulate (k * m) (\i -> i)))

-- ==
-- entry: reps
-- input { [1, 2, 3] [0i64, 2i64] } output { [2, 3, 4] [8i64, 9i64, 10i64] [true, false, true, false] [5, 5, 5] [6, 6, 6] }

entry reps [n] (xs: [n]i32) (is: []i64) =
  let a = map2 (+) xs (rep 1)
  let b = map (\(x, y) -> i64.i32 x + y) (zip xs (rep 7i64))
  let c = scatter (replicate 4 false) is (rep true)
  let d : [n]i32 = rep 5
  in (a, b, c, d, rep 6 : [n]i32)

-- The written type of the result: a declared return type, a `let`'s type
-- or an ascription gives `unflatten xs` and `rep x` their sizes.
-- ==
-- entry: typed
-- input { 2i64 } output { [[1.0f32, 3.0f32, 5.0f32], [7.0f32, 9.0f32, 11.0f32]] [[0.0f32, 1.0f32], [2.0f32, 3.0f32], [4.0f32, 5.0f32]] [1i64, 1i64] [7, 7] }

def plus_one [n] [m] (xs: [n][m]f32) : [n][m]f32 =
  let w = flatten xs |> map (+ 1)
  in w |> unflatten

def fill [n] (x: i32) (_: [n]bool) : [n]i32 = rep x

entry typed (k: i64) =
  let a : [2][3]f32 = unflatten (map f32.i64 (iota 6) |> map (* 2))
  let b = (unflatten (map f32.i64 (iota 6)) : [3][2]f32)
  let c : [k]i64 = if k > 1 then rep 1 else rep 2
  in (plus_one a, b, c, fill 7 [true, false])
