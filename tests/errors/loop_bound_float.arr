entry main (n: f32) : i32 =
  loop acc = 0 for i < n do acc + 1
