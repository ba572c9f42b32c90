-- Issue 17, item 2: fused under ilp, `map2 ... b b` was scheduled before
-- the size check of `map2 ... a xs` (the simplifier had given it the
-- checked width) and reported "size mismatch: 3 and 0" at the line of
-- `d`, a statement that cannot fail. The first error in sequential order
-- is `c`'s: after a run-time error the binary re-runs the entry unfused
-- (the exact-errors fallback) and reports that run's first error.
-- ==
-- input { [1u8, 2u8, 3u8] } error: size mismatch: 0 and 3 at .*:14:11
-- input { [0u8, 0u8] } output { [0u8, 0u8] [0u8, 0u8] }
-- tags { cpu_exact_errors }
entry main (xs: []u8) : ([]u8, []u8) =
  let a = filter (\x -> x == 0) xs
  let b = scan (+) 0 xs
  let c = map2 (\x y -> x + y) a xs
  let d = map2 (\x y -> x + y) b b
  in (c, d)
