-- A map nest of two results, both transposed (Futhark's
-- fuse-across-transpose2): one map over the transposed input makes both
-- (`fusion::permute`), so the consumer's row maps merge with it and
-- neither the pairs nor their transpositions reach memory.
-- ==
-- input { [[1, 2, 3], [4, 5, 6]] } output { [[4, 13], [7, 16], [10, 19]] }
-- input { empty([0][3]i32) } output { [[], [], []] }
-- random input { [100][50]i32 }
entry main [n] (a: [][n]i32) : [][]i32 =
  let p = map (\r -> map (\x -> (x + 1, x * 2)) r) a
  in map (\row -> map (\(s, d) -> s + d) row) (transpose p)
