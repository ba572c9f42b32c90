entry main (xs: []i32) : []i32 =
  xs with [0] = 1.5
