entry main (n: i32) : i32 =
  loop i = 0 while i + n do i + 1
