-- A transposed map nest over matrices whose rows no iteration compares:
-- `transpose (map2 (\xs ys -> map2 f xs ys) xss yss)` is computed as a map
-- over the columns of `xss` and `yss` (fusion/permute.rs), but over no rows
-- `[0][3]` and `[0][2]` inputs are fine (the nest runs no row, so no row's
-- size check fails) while their transposes, `[3][0]` and `[2][0]`, differ
-- in length. The result is `[3][0]`, as the interpreter says. Over some
-- rows, rows of different sizes stop at the zip.

-- ==
-- entry: pairs
-- input { empty([0][3]i32) empty([0][2]i32) } output { empty([3][0]i32) }
-- input { empty([0][2]i32) empty([0][3]i32) } output { empty([2][0]i32) }
-- input { empty([0][0]i32) empty([0][4]i32) } output { empty([0][0]i32) }
-- input { empty([0][3]i32) empty([0][3]i32) } output { empty([3][0]i32) }
-- input { [[1, 2, 3], [0, -1, 2]] [[4, 5, 6], [7, 1, 1]] }
-- output { [[9, 7], [17, -1], [27, 5]] }
-- input { [[1, 2, 3]] [[4, 5]] } error: ^size mismatch: 3 and 2 at .*transposed_nest_empty_rows\.arr:21:31$
-- input { [[1, 2], [3, 4]] [[4, 5]] } error: ^size mismatch: 2 and 1 at

entry pairs (xss: [][]i32) (yss: [][]i32) : [][]i32 =
  let pairs = map2 (\xs ys -> zip xs ys) xss yss
  let sums = map (\row -> map (\(x, y) -> (x + y, x * y)) row) pairs
  in map (\col -> map (\(s, p) -> s + p) col) (transpose sums)

-- ==
-- entry: sums
-- input { empty([0][3]f64) empty([0][2]f64) empty([0][5]f64) } output { empty([3][0]f64) }
-- input { empty([0][1]f64) empty([0][1]f64) empty([0][0]f64) } output { empty([1][0]f64) }
-- input { [[1.0, 2.0]] [[0.5, 0.25]] [[2.0, 2.0]] } output { [[2.0], [2.5]] }
-- input { [[1.0, 2.0]] [[0.5, 0.25]] [[2.0]] } error: ^size mismatch

entry sums (xss: [][]f64) (yss: [][]f64) (zss: [][]f64) : [][]f64 =
  let triples = map3 (\xs ys zs -> zip3 xs ys zs) xss yss zss
  in transpose (map (\row -> map (\(x, y, z) -> x + y * z) row) triples)
