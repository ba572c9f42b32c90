-- Found by `arrc random` (seed 2, shrunk by hand). A filter whose predicate
-- builds a small array (an allocation and a nest inside the look-back
-- compaction's body) keeps too few elements at -O0 on 2 or more threads
-- with ARRC_GRAIN=1: 1 or 5 instead of 8, varying from run to run.
-- `arrc build -O0 compaction_inner_nest.arr && echo '[0,0,0,0,0,0,0,0]' |
-- ARRC_GRAIN=1 ./compaction_inner_nest --threads 2`
-- ==
-- input { [0i64, 0i64, 0i64, 0i64, 0i64, 0i64, 0i64, 0i64] } output { 8i64 }

entry main (xs: []i64) : i64 =
  length (filter (\_ -> let m = tabulate_2d 2 1 (\_ _ -> true) in m[:, 0][0]) xs)
