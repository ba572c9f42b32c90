entry main (x: i32) : i32 =
  let (a, b) = (x, x + 1, x + 2)
  in a + b
