entry main (x: i8) : i8 =
  x + 200
