entry main (x: i32) (y: i32) : i32 =
  i33.max x y
