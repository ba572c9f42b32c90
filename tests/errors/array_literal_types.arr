entry main (x: i32) : []i32 =
  [x, true, 3]
