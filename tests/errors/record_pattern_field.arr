entry main (x: i32) : i32 =
  let {a, c} = {a = x, b = x}
  in a + c
