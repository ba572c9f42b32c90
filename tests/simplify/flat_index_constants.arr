-- `n * m` of constants is folded before `simplify::flat_index` runs:
-- `fits`'s `iota 35` divided by 7 is a nest of 5 rows of 7 (its division,
-- remainder and `unflatten` gone), whose first out-of-range read in
-- row-major order is the flat loop's. `uneven`'s 10 points are no
-- multiple of 3, so its division and remainder stay.
-- nodes: div=1 mod=1 unflatten=0 map=3
-- ==
-- entry: fits
-- input { [0i64, 1i64, 2i64, 3i64, 4i64, 5i64, 6i64] }
-- output { [[0i64, 101i64, 202i64, 303i64, 404i64, 505i64, 606i64], [8i64, 109i64, 210i64, 311i64, 412i64, 513i64, 614i64], [16i64, 117i64, 218i64, 319i64, 420i64, 521i64, 622i64], [24i64, 125i64, 226i64, 327i64, 428i64, 529i64, 630i64], [32i64, 133i64, 234i64, 335i64, 436i64, 537i64, 638i64]] }
-- input { [0i64, 1i64, 2i64] } error: ^index 3 out of bounds for array of length 3 at .*flat_index_constants\.arr:21:8

-- ==
-- entry: uneven
-- input { 1i64 } output { [0i64, 1i64, 2i64, 10i64, 11i64, 12i64, 20i64, 21i64, 22i64, 30i64] }

entry fits (xs: []i64) : [5][7]i64 =
  let n = 5i64
  let m = 7i64
  in unflatten n m (tabulate (n * m) (\k ->
       xs[k % m] * 100 + k / m + k))

entry uneven (c: i64) : []i64 =
  tabulate 10 (\k -> c * (k / 3 * 10 + k % 3))
