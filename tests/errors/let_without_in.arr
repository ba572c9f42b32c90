entry main (x: i32) : i32 =
  let y = x + 1
