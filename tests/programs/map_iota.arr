-- map over iota and replicate.
-- ==
-- input { 5i64 } output { [0i64, 2i64, 4i64, 6i64, 8i64] [7, 7, 7, 7, 7] }
-- input { 0i64 } output { empty([0]i64) empty([0]i32) }

entry main (n: i64) : ([]i64, []i32) =
  (map (\i -> i * 2) (iota n), replicate n 7)
