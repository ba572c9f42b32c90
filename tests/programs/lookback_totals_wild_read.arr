-- Found by `arrc random --rewrites --long` (seed 12200020, x86-64, any
-- -O and fusion, `ARRC_GRAIN=1`, 2 or more threads): a segmentation fault
-- where the interpreter reports the slice's error. The filter runs as a
-- look-back compaction whose totals function (`loopy::par::totals_body`)
-- keeps the view `s` and the read `head s` but drops the slice's check
-- (`drop i64.lowest`), under which the read was proven in range: the
-- totals read at `xs + i64.lowest`. The totals now keep the checks of what
-- they compute.
--
--   arrc build -O0 lookback_totals_wild_read.arr -o p
--   echo 11i64 | ARRC_GRAIN=1 ./p --threads 2
-- ==
-- input { 11i64 } error: ^Error: index -9223372036854775808:0:1 out of bounds

entry main (n: i64) : []i64 =
  filter (\x -> let s = drop i64.lowest (replicate 0i64 true)
                in if length s == 0 then true else head s)
         (iota n)
