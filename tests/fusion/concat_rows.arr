-- A consumer of a concatenation of matrices reads both parts' rows in
-- place: row `i` of `xss ++ yss` is `xss[i]` or `yss[i - n]`, so the two
-- row maps, merged into one, read every row once and the concatenated
-- copy is never made.
-- ==
-- input { [[1i32, 2i32], [3i32, 4i32]] [[10i32, -20i32]] } output { [3i32, 7i32, -10i32] [2i32, 4i32, 10i32] }
-- input { empty([0][3]i32) [[5i32, 6i32, 7i32]] } output { [18i32] [7i32] }
-- input { [[1i32, 2i32]] [[1i32]] } error: size
-- random input { [40][25]i32 [20][25]i32 }
entry main (xss: [][]i32) (yss: [][]i32) : ([]i32, []i32) =
  let zss = xss ++ yss
  in (map (\r -> reduce (+) 0 r) zss, map (\r -> reduce i32.max i32.lowest r) zss)
