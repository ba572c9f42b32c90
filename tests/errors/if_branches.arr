entry main (b: bool) : i32 =
  if b then 1 else true
