entry main (x: f32) : bool =
  !x
