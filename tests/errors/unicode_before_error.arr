-- Non-ASCII text before the mistake — λ, café — must not move its location.
entry main (x: i32) : i32 =
  x + true
