-- Reads at the index of a map over `iota n` stream the array when its
-- outer size is `n` (`simplify::tabulate`, Futhark's tabulate0): `ys` and
-- the product are maps of `xs` and `ys`. `zs` has another size, so its
-- read stays an index, which can fail.
-- nodes: index=1 iota=1
-- ==
-- input { [1i32, 2i32, 3i32] [7i32, 8i32, 9i32] } output { [2i32, 6i32, 12i32] [7i32, 8i32, 9i32] }
-- input { [1i32, 2i32, 3i32] [7i32, 8i32] } error: out of bounds
-- input { empty([0]i32) [7i32] } output { empty([0]i32) empty([0]i32) }

entry main [n][m] (xs: [n]i32) (zs: [m]i32) : ([n]i32, [n]i32) =
  let ys = map (\i -> xs[i] + 1) (iota n)
  let ws = map (\i -> zs[i]) (iota n)
  in (map (\i -> ys[i] * xs[i]) (iota n), ws)
