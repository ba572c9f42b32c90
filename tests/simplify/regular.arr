-- A map that zips rows checks that each pair has one size; every row of a
-- stored array has the array's inner size, so the check moves before the
-- map under `0 < n` (`simplify::regular`) and the map, which then returns
-- its parameters, is the two arrays: no map is left. With no rows nothing
-- is checked, as before.
-- nodes: map=0 assert_eq_sizes=2
-- ==
-- input { [[1i32, 2i32], [3i32, 4i32]] [[5i32, 6i32], [7i32, 8i32]] } output { [[1i32, 2i32], [3i32, 4i32]] [[5i32, 6i32], [7i32, 8i32]] }
-- input { [[1i32, 2i32], [3i32, 4i32]] [[5i32], [7i32]] } error: size mismatch
-- input { [[1i32, 2i32]] [[5i32, 6i32], [7i32, 8i32]] } error: size mismatch
-- input { empty([0][2]i32) empty([0][3]i32) } output { empty([0][2]i32) empty([0][3]i32) }

entry main (a: [][]i32) (b: [][]i32) : ([][]i32, [][]i32) =
  unzip (map2 (\r s -> unzip (zip r s)) a b)
