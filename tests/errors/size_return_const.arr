entry main (x: i32) : [2]i32 =
  [x, x, x]
