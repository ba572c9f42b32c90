entry main (x: i32) : (i32, f32) =
  (x, x)
