-- A map whose iterations each build scratch of size `length xs - 1`: over
-- no rows that size is -1, but no iteration runs, so nothing may fail (a
-- per-thread buffer allocated ahead of the loop once asked for -8 bytes;
-- random seed 11063 on nvptx-emu). With rows, the size is checked inside.
-- ==
-- input { empty([0]f32) } output { empty([0]i64) }
-- input { [1f32] } error: negative size -1
-- input { [1f32, 2f32, 3f32] } error: negative size -1

entry main (xs: []f32) : []i64 =
  #[noinline] map (\_ ->
    let s = concat (replicate (-1) 0i64) (map (\_ -> 1i64) (map (\_ -> false) xs))
    in s[0]) xs
