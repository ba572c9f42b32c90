-- Found by `arrc random --kernels`: a local function's size parameters
-- written without a space between them, `let f [r][c] ...`, as Futhark
-- accepts (only the first needs a space: `let f[i] = v` is an update).
-- The parser took the second `[` for an index.
-- ==
-- input { [[1, 2, 3], [4, 5, 6]] } output { [10, 14, 18] }
-- input { empty([0][2]i32) } output { [0, 0] }

def columns [n][m] (xss: [n][m]i32) : [m]i32 = reduce (map2 (+)) (replicate m 0) xss

entry main (xss: [][]i32) : []i32 =
  let f [r][c] (yss: [r][c]i32) : [c]i32 = reduce (map2 (+)) (replicate c 0) yss
  let g 't [k] [w] (zss: [k][w]t) : [w][k]t = transpose zss
  in map2 (+) (f xss) (columns (transpose (g xss)))
