-- Inclusive scans, left to right.
-- ==
-- input { [1, 2, 3, 4] } output { [1, 3, 6, 10] [1, 2, 3, 4] }
-- input { [5, 1, 7, 2] } output { [5, 6, 13, 15] [5, 5, 7, 7] }
-- input { empty([0]i32) } output { empty([0]i32) empty([0]i32) }

entry main (xs: []i32) : ([]i32, []i32) =
  (scan (+) 0 xs, scan (\a b -> if a > b then a else b) (-2147483647 - 1) xs)
