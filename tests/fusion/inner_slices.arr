-- Slices over a matrix's inner dimension read in place: the loops read
-- `xss` at the composed positions (`loopy::lower`'s `Generated::View`), so
-- neither the strided columns nor the column is copied.
-- ==
-- input { [[1, 2, 3, 4], [5, 6, 7, 8]] } output { [6, 14] [2, 6] [5, 13] }
-- input { empty([0][4]i32) } output { empty([0]i32) empty([0]i32) empty([0]i32) }
-- random input { [100][50]i32 }
entry main [n][m] (xss: [n][m]i32) : ([n]i32, [n]i32, [n]i32) =
  let odd = xss[:, 1:m:2]
  let first = xss[:, 0]
  let middle = xss[0:n, 1:3]
  in ( map (\r -> reduce (+) 0 r) odd
     , map (+ 1) first
     , map (\r -> reduce (+) 0 r) middle )
