-- take and drop.
-- ==
-- input { 2i64 [1, 2, 3, 4] } output { [1, 2] [3, 4] }
-- input { 0i64 [1, 2, 3] } output { empty([0]i32) [1, 2, 3] }
-- input { 3i64 [1, 2, 3] } output { [1, 2, 3] empty([0]i32) }

entry main (k: i64) (xs: []i32) = (take k xs, drop k xs)
