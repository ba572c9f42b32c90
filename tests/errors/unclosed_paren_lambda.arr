entry main (xs: []i32) : []i32 =
  map (\x -> x + 1 xs
