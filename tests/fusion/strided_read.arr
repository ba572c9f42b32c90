-- A strided slice is read through its index function: the maps read every
-- other element of `xs` (backwards in the second) and no sliced copy is
-- made. A slice of a map moves onto the map's input (`fusion::permute`),
-- so the third result is one loop over the kept elements (Futhark's
-- slicemap1).
-- ==
-- input { [-1, 5, 6, 7, 8] } output { [-3i32, 18, 24] [24i32, 18, -3] [10i32, 12i32] }
-- random input { [1000]i32 }
entry main (xs: []i32) : ([]i32, []i32, []i32) =
  ( map (\x -> x * 3) xs[::2],
    map (\x -> x * 3) xs[::-2],
    map (+ 3) ((map (+ 2) xs)[1::2]) )
