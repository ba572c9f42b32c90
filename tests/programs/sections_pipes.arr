-- Operator sections and pipes: `(+)`, `(+ 1)`, `(1 +)`, `(- x)` is
-- negation and not a section, `|>` and `<|`, application vs indexing.

-- ==
-- entry: sections
-- input { [1, 2, 3] } output { [9, 8, 7] [-9, -8, -7] [2, 4, 8] [0, 1, 1] [true, false, false] }

entry sections (xs: []i32) : ([]i32, []i32, []i32, []i32, []bool) =
  ( map (10 -) xs
  , map (\x -> x - 10) xs
  , map (2 **) xs
  , map (/ 2) xs
  , map (< 2) xs )

-- ==
-- entry: negation
-- input { 5 } output { -5 -5 -4 }

-- `(- x)` and `(-x)` negate; `(- 1)` is the number -1, so this adds -1.
entry negation (x: i32) : (i32, i32, i32) =
  ((- x), (-x), x + (- 1) - 8 + 8 - (-1) + (-1) - 7 - 1)

-- ==
-- entry: pipes
-- input { [1, 2, 3, 4] } output { 20 20 }

entry pipes (xs: []i32) : (i32, i32) =
  ( xs |> map (* 2) |> reduce (+) 0
  , reduce (+) 0 <| map (* 2) <| xs )

-- ==
-- entry: op_as_fn
-- input { [1, 2, 3] [4, 5, 6] } output { [4, 10, 18] [false, false, false] [-3, -3, -3] }

entry op_as_fn (xs: []i32) (ys: []i32) : ([]i32, []bool, []i32) =
  (map2 (*) xs ys, map2 (==) xs ys, map2 (-) xs ys)

-- ==
-- entry: app_vs_index
-- input { [10, 20, 30] } output { 20 3i64 }

-- `xs[1]` indexes; `length [1, 2, 3]` applies length to a literal.
def len_of (a: []i32) : i64 = length a

entry app_vs_index (xs: []i32) : (i32, i64) =
  (xs[1], len_of [1, 2, 3])

-- ==
-- entry: pipe_precedence
-- input { 3 } output { 16 }

-- `|>` is the loosest operator: `x + 1 |> f` is `f (x + 1)`.
entry pipe_precedence (x: i32) : i32 =
  x + 1 |> (\y -> y * y)

-- ==
-- entry: array_literal_arg
-- input { [10, 20, 30] } output { 20 60 }

-- `pick xs [1]` applies pick to xs and to the array literal [1]; `xs[1]`
-- (no space) would index.
def pick (xs: []i32) (is: []i64) : i32 = xs[is[0]]

entry array_literal_arg (xs: []i32) : (i32, i32) =
  (pick xs [1], reduce (+) 0 xs)
