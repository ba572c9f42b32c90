entry main (x: i32) : i32 =
  if x > 0 then x
