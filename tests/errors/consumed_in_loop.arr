def bump (xs: *[]i32) : *[]i32 = map (+ 1) xs

entry main (xs: *[]i32) (n: i64) : i32 =
  loop acc = 0 for _i < n do acc + (bump xs)[0]
