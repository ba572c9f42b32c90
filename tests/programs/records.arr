-- Records: literals with fields in any order, field access, record patterns
-- (full and punned), records in lambdas without annotations, arrays of
-- records built by map, and a type abbreviation for a record.

type point = {x: f32, y: f32}

def norm2 (p: point) : f32 = p.x * p.x + p.y * p.y

def add ({x = x1, y = y1}: point) ({x = x2, y = y2}: point) : point =
  {y = y1 + y2, x = x1 + x2}

-- ==
-- entry: fields
-- input { 3.0f32 4.0f32 } output { 25.0f32 6.0f32 8.0f32 }

entry fields (a: f32) (b: f32) : (f32, f32, f32) =
  let p = {y = b, x = a}
  let q = add p p
  in (norm2 p, q.x, q.y)

-- ==
-- entry: punned
-- input { 1 5 } output { 6 -4 }

-- Punned record patterns `{lo, hi}` in a let.
entry punned (a: i32) (b: i32) : (i32, i32) =
  let r = {lo = a, hi = b}
  let {lo, hi} = r
  in (lo + hi, lo - hi)

-- ==
-- entry: lambda_field
-- input { [1.0f32, 2.0f32] [3.0f32, 4.0f32] } output { [1.0f32, 2.0f32] [30.0f32, 40.0f32] 4.0f32 }

-- `map (\p -> p.x) points` needs no annotation: the lambda's parameter
-- type flows from the array of records.
entry lambda_field (xs: []f32) (ys: []f32) : ([]f32, []f32, f32) =
  let points = map2 (\x y -> {x, y}) xs ys
  let scaled = map (\p -> {x = p.x, y = p.y * 10}) points
  in (map (\p -> p.x) scaled, map (\p -> p.y) scaled, reduce (\a b -> if a > b then a else b) 0 (map (\p -> p.y) points))

-- ==
-- entry: nested_record
-- input { 2 } output { 2 3 true }

-- Records nested in records and tuples in records.
entry nested_record (n: i32) : (i32, i32, bool) =
  let r = {inner = {a = n, b = (n + 1, n > 0)}, tag = 7}
  in (r.inner.a, r.inner.b.0, r.inner.b.1)

-- ==
-- entry: record_lambda_pattern
-- input { [1, 2, 3] [10, 20, 30] } output { [11, 22, 33] }

-- A record pattern as a lambda parameter.
entry record_lambda_pattern (xs: []i32) (ys: []i32) : []i32 =
  map2 (\a b -> {lo = a, hi = b}) xs ys
  |> map (\{lo, hi} -> lo + hi)

-- ==
-- entry: fn_record_param
-- input { 2.0f32 -1.0f32 } output { -1.0f32 2.0f32 }

-- Punned record pattern as a function parameter; the result record built
-- with fields in another order than its type lists them.
def flip ({x, y}: point) : point = {y = x, x = y}

entry fn_record_param (a: f32) (b: f32) : (f32, f32) =
  let p = flip {x = a, y = b}
  in (p.x, p.y)
