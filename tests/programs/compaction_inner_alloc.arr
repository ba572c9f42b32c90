-- Found by `arrc random` (seeds 2, 1065, 2021, 3916; shrunk by hand). A
-- filter or partition whose predicate builds a small array (an allocation
-- and a nest writing its rows, inside the look-back compaction's body) kept
-- too few elements at -O0 on 2 or more threads with ARRC_GRAIN=1: the
-- chunk totals left out the nest that fills the array through its rows.
-- ==
-- input { [0i64, 0i64, 0i64, 0i64, 0i64, 0i64, 0i64, 0i64] } output { 8i64 }
-- input { [1i64, 2i64, 0i64, 0i64, -5i64, 4i64, 4i64, 7i64, -5i64, 2i64, 8i64, 3i64] } output { 12i64 }
-- input { empty([0]i64) } output { 0i64 }
-- entry: parts
-- input { [3i64, -1i64, 0i64, 5i64, 7i64, -2i64, 1i64, 0i64, 9i64] }
-- output { [3i64, 5i64, 7i64, 1i64, 9i64] [-1i64, 0i64, -2i64, 0i64] }

entry main (xs: []i64) : i64 =
  length (filter (\_ -> let m = tabulate_2d 2 1 (\_ _ -> true) in m[:, 0][0]) xs)

entry parts (xs: []i64) : ([]i64, []i64) =
  partition (\x -> let m = map (\_ -> replicate 3 (x > 0)) (iota 2) in m[1, 2]) xs
