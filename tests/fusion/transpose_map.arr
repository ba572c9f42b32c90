-- A map nest through `transpose` (Futhark's fuse-across-transpose1): the
-- transposition moves onto the input (`fusion::permute`), the consumer
-- reads the columns of `a` in place (no transposed copy) and the two row
-- maps are one loop nest whose inner maps fuse too (`fusion::rows`).
-- ==
-- input { [[1, 2, 3], [4, 5, 6]] } output { [[6, 15], [9, 18], [12, 21]] }
-- input { empty([0][3]i32) } output { [[], [], []] }
-- random input { [100][50]i32 }
entry main [n] (a: [][n]i32) : [][]i32 =
  let b = map (\r -> map (+ 1) r) a
  in map (\c -> map (* 3) c) (transpose b)
