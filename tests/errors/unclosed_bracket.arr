entry main (x: i32) : []i32 =
  [x, x + 1
