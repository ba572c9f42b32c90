-- Futhark's `horizontal-fusion-shared-input`: two products of the rows of
-- `W` with the columns of `A` and of `WH`. The row maps over `W` are one
-- nest; inside it, the maps over the columns of `A` and of `WH` read the
-- same row of `W` through their dot products, so they are siblings by that
-- row (`graph`'s free-row pairs), are merged (`fusion::rows`), and the two
-- dot products share one loop that reads the row once (issue 21). The
-- quotient's divisor is never zero (a square plus one).
-- ==
-- input { [[1, 2], [3, 4], [5, 6]] [[1, 2, 3], [4, 5, 6]] [[1, 1, 2], [1, -1, 1]] }
-- output { [[0, 6, 0], [0, 13, 0], [0, 20, 0]] }
-- input { empty([0][2]i32) [[1, 2, 3], [4, 5, 6]] [[1, 1, 2], [1, -1, 1]] }
-- output { empty([0][3]i32) }
-- input { [[1, 2]] empty([2][0]i32) empty([2][0]i32) }
-- output { [empty([0]i32)] }
-- input { [[7]] [[3]] [[2]] }
-- output { [[0]] }
-- input { empty([3][0]i32) empty([0][5]i32) empty([0][5]i32) }
-- output { [[0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]] }
-- random input { [7][5]i32 [5][3]i32 [5][3]i32 }
-- input { [[1, 2], [3, 4]] [[1, 2, 3], [4, 5, 6]] [[1, 1], [1, -1]] }
-- error: .
-- input { [[1, 2], [3, 4]] [[1, 2, 3], [4, 5, 6]] [[1, 1, 1], [1, -1, 1], [0, 0, 0]] }
-- error: .

def dotprod [n] (xs: [n]i32) (ys: [n]i32) : i32 =
  i32.sum (map2 (i32.*) xs ys)

entry main W A WH =
  let W_TA = map (\Wr -> map (\Ac -> dotprod Wr Ac) (transpose A)) W
  let W_TWH = map (\Wr -> map (\WHc -> dotprod Wr WHc) (transpose WH)) W
  in map2 (map2 (\a b -> a / (b * b + 1))) W_TA W_TWH
