-- Run-time errors: one `Error:` line with the phrase and `at FILE:LINE:COL`
-- of the failing expression itself; inside an inlined function the location
-- is in that function. The LINE:COL values in the patterns below point at
-- the expressions marked in the code.

def get (xs: []i32) (i: i64) : i32 =
  xs[i]

def safe_div (a: i32) (b: i32) : i32 =
  let q = a / b
  in q

-- ==
-- entry: index_direct
-- input { [1, 2, 3] 3i64 } error: ^index 3 out of bounds for array of length 3 at .*runtime_errors\.arr:20:7$
-- input { [1, 2, 3] -2i64 } error: index -2 out of bounds for array of length 3 at .*runtime_errors\.arr:20:7
-- input { [1, 2, 3] 0i64 } output { 2 }

entry index_direct (xs: []i32) (i: i64) : i32 =
  1 + xs[i]

-- ==
-- entry: index_inlined
-- input { [1, 2, 3] 5i64 } error: index 5 out of bounds for array of length 3 at .*runtime_errors\.arr:7:3
-- input { empty([0]i32) 0i64 } error: index 0 out of bounds for array of length 0 at .*runtime_errors\.arr:7:3

-- The failing index is in `get`, so the location is line 7, not the call.
entry index_inlined (xs: []i32) (i: i64) : i32 =
  get xs i

-- ==
-- entry: index_in_map
-- input { [1, 2, 3] [0i64, 3i64] } error: index 3 out of bounds for array of length 3 at .*runtime_errors\.arr:37:14

-- An out-of-bounds gather inside a map's lambda.
entry index_in_map (xs: []i32) (is: []i64) : []i32 =
  map (\i -> xs[i]) is

-- ==
-- entry: div_direct
-- input { 1 0 } error: division by zero at .*runtime_errors\.arr:45:7
-- input { 6 3 } output { 3 }

entry div_direct (a: i32) (b: i32) : i32 =
  1 + a / b

-- ==
-- entry: div_inlined
-- input { 1 0 } error: division by zero at .*runtime_errors\.arr:10:11

entry div_inlined (a: i32) (b: i32) : i32 = safe_div a b

-- ==
-- entry: mod_zero
-- input { 7i64 0i64 } error: division by zero at .*runtime_errors\.arr:59:3
-- input { 7u8 0u8 } error: argument 1

entry mod_zero (a: i64) (b: i64) : i64 =
  a % b

-- ==
-- entry: div_in_map
-- input { [1, 2] [1, 0] } error: division by zero

entry div_in_map (xs: []i32) (ys: []i32) : []i32 = map2 (//) xs ys

-- ==
-- entry: size_map2
-- input { [1, 2, 3] [1, 2] } error: size mismatch.* at .*runtime_errors\.arr:72:3

entry size_map2 (xs: []i32) (ys: []i32) : []i32 =
  map2 (*) xs ys

-- ==
-- entry: assertion
-- input { 5 } output { 10 }
-- input { -5 } error: ^assertion failed at .*runtime_errors\.arr:81:3

-- `assert c e` checks c before evaluating e (e would divide by zero here).
entry assertion (x: i32) : i32 =
  assert (x > 0) (x * 2 + (if x > 0 then 0 else 1 / 0))

-- ==
-- entry: assert_in_map
-- input { [1, 2, 3] } output { [1, 2, 3] }
-- input { [1, -2, 3] } error: assertion failed at .*runtime_errors\.arr:89:14

entry assert_in_map (xs: []i32) : []i32 =
  map (\x -> assert (x > 0) x) xs

-- ==
-- entry: first_error_wins
-- input { [1, 2, 3] 0 } error: ^(division by zero|index 10 out of bounds)
-- input { [1, 2, 3] 5 } error: ^index 10 out of bounds

-- Two failing expressions: the order in which independent expressions are
-- checked is not pinned, so either error is accepted; with d = 5 only the
-- index fails.
entry first_error_wins (xs: []i32) (d: i32) : i32 =
  let a = 10 / d
  let b = xs[10]
  in a + b

-- ==
-- entry: not_evaluated
-- input { 0 } output { 0 }

-- A branch that is not taken does not fail.
entry not_evaluated (d: i32) : i32 =
  if d == 0 then 0 else 10 / d + [1, 2][5]
