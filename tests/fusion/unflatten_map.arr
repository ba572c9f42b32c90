-- Fusion through `unflatten`: a map nest over the rows of an unflattened
-- vector is a map over the vector, unflattened (`fusion::reshape`), so it
-- fuses with the map that makes the vector: one loop that writes only the
-- result (Futhark's fuse-across-reshape1). The unflatten's size check
-- stays.
-- ==
-- input { [1, 2, 3, 4, 5, 6] } output { [[4, 6, 8], [10, 12, 14]] }
-- input { [1, 2, 3, 4, 5] } error: size mismatch.* at .*unflatten_map\.arr:12:39
-- random input { [1000]i32 }
entry main (xs: []i32) : [][]i32 =
  let a = map (\x -> x + 1) xs
  in map (\r -> map (\x -> x * 2) r) (unflatten 2 (length xs / 2) a)
