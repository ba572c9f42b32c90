-- Indexing inside a map's function is a gather: reversing an array.
-- ==
-- input { [1, 2, 3, 4] } output { [4, 3, 2, 1] }
-- input { empty([0]i32) } output { empty([0]i32) }

entry main (xs: []i32) : []i32 =
  let n = length xs
  in map (\i -> xs[n - 1 - i]) (iota n)
