-- Tuple patterns wherever a name is bound: let, loop state, lambda and
-- function parameters; nested tuples and component chains `t.0.1`;
-- wildcards; unzip and zip.

def swap 'a 'b ((x, y): (a, b)) : (b, a) = (y, x)

-- ==
-- entry: fn_param
-- input { 1 true } output { true 1 }

entry fn_param (a: i32) (b: bool) : (bool, i32) = swap (a, b)

-- ==
-- entry: nested
-- input { 1 2 3 } output { 2 3 6 1 }

-- Nested tuple patterns and chained component access.
entry nested (a: i32) (b: i32) (c: i32) : (i32, i32, i32, i32) =
  let t = (a, (b, c))
  let (x, (y, z)) = t
  in (t.1.0, t.1.1, x + y + z, t.0)

-- ==
-- entry: lambda_tuple
-- input { [1, 2, 3] [4, 5, 6] } output { [4, 10, 18] [5, 7, 9] }

-- `\(a, b) -> ...` over zipped arrays, and unzip of a map returning pairs.
entry lambda_tuple (xs: []i32) (ys: []i32) : ([]i32, []i32) =
  unzip (map (\(a, b) -> (a * b, a + b)) (zip xs ys))

-- ==
-- entry: wildcard
-- input { 7 8 9 } output { 16 }

entry wildcard (a: i32) (b: i32) (c: i32) : i32 =
  let (_, y, z) = (a, b, c)
  in y + z - 1

-- ==
-- entry: reduce_pairs
-- input { [3, 1, 4, 1, 5] } output { 14 5 }

-- reduce over pairs: (sum, count).
entry reduce_pairs (xs: []i32) : (i32, i32) =
  reduce (\(s1, c1) (s2, c2) -> (s1 + s2, c1 + c2)) (0, 0) (map (\x -> (x, 1)) xs)

-- ==
-- entry: zip3_unzip3
-- input { [1, 2] [3, 4] [5, 6] } output { [5, 6] [3, 4] [1, 2] }

entry zip3_unzip3 (xs: []i32) (ys: []i32) (zs: []i32) : ([]i32, []i32, []i32) =
  let t = zip3 xs ys zs
  let (a, b, c) = unzip3 (map (\(x, y, z) -> (z, y, x)) t)
  in (a, b, c)

-- ==
-- entry: argmin_pair
-- input { [5.0, 2.0, 8.0, 2.0] } output { 2.0 1i64 }

-- reduce with a tuple (value, index) operator; first index on ties.
entry argmin_pair (xs: []f64) : (f64, i64) =
  reduce (\(a, i) (b, j) -> if a < b || (a == b && i < j) then (a, i) else (b, j))
         (f64.inf, -1) (zip xs (iota (length xs)))

-- ==
-- entry: unit_ok
-- input { 3 } output { 3 }

-- The unit value `()` as a tuple component is allowed inside a program.
entry unit_ok (x: i32) : i32 =
  let (u, y) = ((), x)
  let () = u
  in y
