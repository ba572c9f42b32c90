-- scan into map: the map runs in the scan's left-to-right order.
-- ==
-- random input { [1000]i32 }
entry main (xs: []i32) : []i32 =
  map (\x -> x - 1) (scan (+) 0 xs)
