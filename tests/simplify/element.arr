-- An element of a map read nowhere else is computed alone
-- (`simplify::element`, Futhark's fusion3): `(map f xs)[k]` is `f xs[k]`,
-- with the bounds check of the index. A map whose function can fail
-- (integer division) stays whole: another element could stop it.
-- nodes: map=1 index=2
-- ==
-- input { [1i32, 2i32, 3i32] 1i64 } output { 5i32 3i32 }
-- input { [1i32, 2i32, 3i32] 3i64 } error: out of bounds
-- input { [1i32, 0i32, 3i32] 2i64 } error: division by zero

entry main (xs: []i32) (k: i64) : (i32, i32) =
  let ys = map (\x -> x * 2 + 1) xs
  let zs = map (\x -> 6 / x) xs
  in (ys[k], zs[k])
