entry main (x: i32) : i32 =
  let t = (x, x + 1)
  in t.2
