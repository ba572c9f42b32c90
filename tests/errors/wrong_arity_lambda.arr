entry main (xs: []i32) (ys: []i32) : []i32 =
  map2 (\x -> x + 1) xs ys
