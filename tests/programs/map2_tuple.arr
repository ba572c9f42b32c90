-- map2, and a map whose lambda returns a pair (two result arrays).
-- ==
-- input { [1, 2, 3] [10, 20, 30] } output { [11, 22, 33] [-9, -18, -27] }
-- input { [1, 2] [1, 2, 3] } error: size mismatch

entry main (xs: []i32) (ys: []i32) : ([]i32, []i32) =
  let sums = map2 (+) xs ys
  let diffs = map2 (\x y -> x - y) xs ys
  in (sums, diffs)
