entry main (x: i32) : i32 =
  reduce (+) 0 (map (+ 1) x)
