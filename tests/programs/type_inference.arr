-- Section 10 inference: a literal's type fixed by a later use or by the
-- return type; defaults i32 / f64; lambda parameters typed from the array;
-- ascriptions; local functions; `in` left out before another `let`.

-- ==
-- entry: later_use
-- input { 5u16 } output { 12u16 2.5f32 }

-- `k` and `h` get their types from later uses (u16 and f32).
entry later_use (x: u16) : (u16, f32) =
  let k = 7
  let h = 2.5
  let r = x + k
  in (r, h * 1f32)

-- ==
-- entry: from_return
-- input { 0 } output { 100i8 [1u64, 2u64] 0.5f32 }

-- Literals typed by the return type alone.
entry from_return (_x: i32) : (i8, []u64, f32) = (100, [1, 2], 0.5)

-- ==
-- entry: defaults
-- input { true } output { 3 2.5 }

-- Unconstrained literals default to i32 and f64.
entry defaults (b: bool) : (i32, f64) =
  let i = if b then 3 else 4
  let f = if b then 2.5 else 1
  in (i, f)

-- ==
-- entry: ascription
-- input { 2i64 } output { 7i64 255u8 }

entry ascription (n: i64) : (i64, u8) =
  let a = (5 : i64) + n
  let b : u8 = 255
  in (a, b)

-- ==
-- entry: local_fn
-- input { [1, 2, 3] } output { [3, 6, 9] 18 }

-- `let f x = ...` defines a local function, possibly closing over variables.
entry local_fn (xs: []i32) : ([]i32, i32) =
  let k = 3
  let f x = x * k
  let add a b = a + b
  let ys = map f xs
  in (ys, reduce add 0 ys)

-- ==
-- entry: lambda_flow
-- input { [1u8, 2u8] [0.5f32, 1.5f32] } output { [2u8, 4u8] [1.0f32, 3.0f32] }

-- Lambda parameters get their types from the arrays: no annotations.
entry lambda_flow (xs: []u8) (ys: []f32) : ([]u8, []f32) =
  (map (\x -> x + x) xs, map (\y -> y * 2) ys)

-- ==
-- entry: typed_lambda
-- input { 3 } output { 1.5f32 }

entry typed_lambda (x: i32) : f32 = (\(y: f32) -> y / 2) (f32.i32 x)

-- ==
-- entry: type_abbrev
-- input { 1 2 } output { 3 -1 }

type pair = (i32, i32)

def sd (p: pair) : pair = (p.0 + p.1, p.0 - p.1)

entry type_abbrev (a: i32) (b: i32) : pair = sd (a, b)
