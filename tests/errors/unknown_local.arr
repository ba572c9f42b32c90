entry main (count: i32) : i32 =
  let total = count * 2
  in totl + 1
