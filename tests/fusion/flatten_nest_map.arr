-- Fusion through `flatten` of a nest whose inner map streams another
-- array or `iota` (Futhark's fuse-across-reshape4 and 5): the nest cannot
-- be made flat without splitting the flat index, so the map over the flat
-- array moves into the nest's inner map instead
-- (`fusion::reshape::compose_into_nests`): one loop nest where there
-- were two.
-- ==
-- input { [1, 2, 3] [4, 5, 6] }
-- output { [16.0, 20.0, 24.0, 24.0, 30.0, 36.0, 32.0, 40.0, 48.0] }
-- random input { [30]i32 [17]i32 }
-- random input { [0]i32 [5]i32 }

-- ==
-- entry: table
-- input { 3i64 4i64 }
-- output { [0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 6.0, 9.0, 0.0, 6.0, 12.0, 18.0] }
-- input { 0i64 4i64 }
-- output { empty([0]f64) }

-- A map that can fail stays apart: all of the nest's elements, and its
-- error, come first.
-- ==
-- entry: failing
-- input { [1, 2] [14, 3] } error: division by zero at .*flatten_nest_map\.arr:39:25
-- input { [1, 2] [14, 4] } error: division by zero at .*flatten_nest_map\.arr:41:17
-- input { [1, 2] [4, 5] } output { [10, 20, 10, 20] }

entry main (as: []i32) (bs: []i32) : []f64 =
  map (\a -> map (\b -> (a + 1) * b) bs) as
  |> flatten
  |> map (\x -> f64.i32 x * 2.0)

entry table (n: i64) (m: i64) : []f64 =
  tabulate_2d n m (\i j -> i * 3 * j)
  |> flatten
  |> map (\x -> f64.i64 x)

entry failing (as: []i32) (bs: []i32) : []i32 =
  map (\a -> map (\b -> (a - a + 10) / (b - 3)) bs) as
  |> flatten
  |> map (\x -> 100 / x)
