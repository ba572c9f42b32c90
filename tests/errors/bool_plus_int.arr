entry main (b: bool) (x: i32) : i32 =
  b + x
