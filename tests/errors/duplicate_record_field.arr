entry main (x: i32) : i32 =
  let r = {a = x, a = x + 1}
  in r.a
