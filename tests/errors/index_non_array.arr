entry main (x: i32) (i: i64) : i32 =
  x[i]
