-- Futhark's tabulate0: maps over `iota n` that read arrays of `n`
-- elements at their index. The simplifier streams the arrays instead
-- (`simplify::tabulate`), so the second map fuses with the first: one
-- loop that never writes `ys` (two loops and a gather before).
-- ==
-- input { [1, 2, 3] } output { [2, 6, 12] }
-- input { empty([0]i32) } output { empty([0]i32) }
-- random input { [1000]i32 }
-- structure { Screma 1 }
entry main [n] (xs: [n]i32) : [n]i32 =
  let ys = map (\i -> xs[i] + 1) (iota n)
  in map (\i -> ys[i] * xs[i]) (iota n)
