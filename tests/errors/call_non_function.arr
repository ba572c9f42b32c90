entry main (x: i32) (y: i32) : i32 =
  x y
