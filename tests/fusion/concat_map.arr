-- A consumer of a concatenation reads both parts without making it: the
-- map over `xs ++ ys` and the two sums read `xs` then `ys` in one loop,
-- with no concatenated copy in memory.
-- ==
-- input { [1i32, 2i32] [10i32, 20i32, 30i32] } output { 126i32 30i32 }
-- input { empty([0]i32) [5i32] } output { 10i32 5i32 }
-- random input { [1000]i32 [500]i32 }
entry main (xs: []i32) (ys: []i32) : (i32, i32) =
  let zs = xs ++ ys
  in (reduce (+) 0 (map (\z -> z * 2) zs), reduce i32.max i32.lowest zs)
