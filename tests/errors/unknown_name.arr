entry main (xs: []i32) : i64 =
  lenght xs
