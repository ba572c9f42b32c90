-- map into filter: the map runs in the filter's loop on every element and
-- only the kept values are written.
-- ==
-- input { [1i32, 5i32, 2i32, 7i32] } output { [2i32, 4i32] }
-- random input { [1000]i32 }
entry main (xs: []i32) : []i32 =
  filter (> 0) (map (\x -> x - 3) xs)
