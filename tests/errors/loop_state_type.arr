entry main (n: i32) : i32 =
  loop acc = 0 for i < n do acc > i
