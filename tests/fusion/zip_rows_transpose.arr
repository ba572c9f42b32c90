-- Rows zipped pairwise, mapped and transposed (the shape of Futhark's
-- fuse-across-transpose2). The zip returns its parameters, rows of stored
-- arrays, so it is no loop (`simplify::regular`): one loop nest reads
-- both inputs once and writes the result (two nests before, the first
-- writing both arrays again).
-- ==
-- input { [[1, 2, 3], [4, 5, 6]] [[1, 1, 1], [2, 2, 2]] } output { [[3, 14], [5, 17], [7, 20]] }
-- input { [[1, 2, 3], [4, 5, 6]] [[1, 1], [2, 2]] } error: size mismatch
-- input { empty([0][3]i32) empty([0][3]i32) } output { [[], [], []] }
-- random input { [40][30]i32 [40][30]i32 }
-- structure { /Screma 1 }
entry main [m] (xss: [][m]i32) (yss: [][m]i32) : [][]i32 =
  let pairs = map2 (\xs ys -> zip xs ys) xss yss
  let sums = map (\row -> map (\(x, y) -> (x + y, x * y)) row) pairs
  in map (\col -> map (\(s, p) -> s + p) col) (transpose sums)
