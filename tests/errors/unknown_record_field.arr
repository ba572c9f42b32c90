entry main (x: f32) : f32 =
  let p = {x = x, y = 2 * x}
  in p.z
