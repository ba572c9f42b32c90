entry main (xs: []i32) (i: f32) : i32 =
  xs[i]
