-- map into scan: the scan reads the mapped values from registers.
-- ==
-- random input { [1000]i32 }
entry main (xs: []i32) : []i32 =
  scan (+) 0 (map (\x -> x * 3) xs)
