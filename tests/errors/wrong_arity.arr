def add (a: i32) (b: i32) : i32 = a + b

entry main (x: i32) : i32 =
  add x x x
