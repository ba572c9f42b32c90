entry main (x: i32) (y: f64) : i32 =
  x + y
