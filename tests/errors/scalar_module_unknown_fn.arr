entry main (x: f32) : f32 =
  f32.sqr x
