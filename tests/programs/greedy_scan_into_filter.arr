-- A scan feeding a filter through maps: a filter's compaction loop has no
-- place for the scan's carried value, so they run as separate loops under
-- every fusion strategy. Found by the random tester (seed 400012, under
-- --fusion greedy: "variable used outside the scope of its definition").
-- ==
-- input { [1i64, 2i64, 3i64, -4i64, 5i64] }
-- output { [3i32, 6i32, 7i32] [1i32, 3i32, 6i32, 2i32, 7i32] }
-- input { empty([0]i64) }
-- output { empty([0]i32) empty([0]i32) }

entry main (xs: []i64) : ([]i32, []i32) =
  let s = map (\w -> i32.i64 w) (scan (+) 0i64 xs)
  in (filter (\f -> f > 2) s, s)

-- ==
-- entry: only_filter
-- input { [1i64, 2i64, 3i64] }
-- output { [3i32, 6i32] }
-- input { empty([0]i64) }
-- output { empty([0]i32) }

entry only_filter (xs: []i64) : []i32 =
  filter (\f -> f > 2) (map (\w -> i32.i64 w) (scan (+) 0i64 xs))
