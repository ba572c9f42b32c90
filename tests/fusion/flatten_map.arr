-- Fusion through `flatten`: a map nest over the rows of a matrix,
-- flattened, is made flat over the flattened matrix (a view) by
-- `fusion::reshape`, so it fuses with the map after it: one loop that
-- writes only the result (Futhark's fuse-across-reshape tests).
-- ==
-- input { [[1, 2, 3], [4, 5, 6]] } output { [9, 11, 13, 15, 17, 19] }
-- random input { [40][25]i32 }
entry main (xss: [][]i32) : []i32 =
  map (\x -> x * 2 + 1) (flatten (map (\r -> map (\x -> x + 3) r) xss))
