-- Parameters written as one type parameter hold values of one type: where
-- it is an array type, their arguments must have the same sizes (as in
-- Futhark), checked at the call.

def pair 't (x: t) (y: t) = (x, y)

def pick 't (first: bool) (x: t) (y: t) : t = if first then x else y

-- ==
-- input { [1] [2] } output { [1] [2] }
-- input { [1] [2, 3] } error: ^size mismatch
-- input { empty([0]i32) [4] } error: ^size mismatch
entry main (xs: []i32) (ys: []i32) = pair xs ys

-- ==
-- entry: rows
-- input { [[1, 2], [3, 4]] [[5, 6], [7, 8]] } output { [[5, 6], [7, 8]] }
-- input { [[1, 2], [3, 4]] [[5, 6, 0], [7, 8, 0]] } error: ^size mismatch
entry rows (a: [][]i32) (b: [][]i32) = pick false a b

-- Scalars and arrays of one size pass as before.
-- ==
-- entry: scalars
-- input { 1 2 [1, 2] [3, 4] } output { 2 [3, 4] }
entry scalars (a: i32) (b: i32) (xs: []i32) (ys: []i32) =
  (pick false a b, pick false xs ys)
