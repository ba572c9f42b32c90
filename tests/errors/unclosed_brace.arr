entry main (x: i32) : i32 =
  let r = {a = x, b = x
  in r.a
