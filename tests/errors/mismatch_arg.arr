def f (x: f32) : f32 = x * 2

entry main (n: i32) : f32 =
  f n
