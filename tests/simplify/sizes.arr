-- Size forwarding: the length of a map's result is the map's width, the
-- length of `iota n` is n, and sizes asserted equal are one.
-- nodes: size=2 assert_eq_sizes=1 iota=0
-- ==
-- input { [1i32, 2i32] [3i32, 4i32] } output { 2i64 5i64 [4i32, 6i32] }
-- input { [1i32, 2i32] [3i32] } error: size mismatch

entry main (xs: []i32) (ys: []i32) : (i64, i64, []i32) =
  let zs = map2 (+) xs ys
  let ws = map2 (+) xs ys
  in (length zs, length (iota 5), ws)
