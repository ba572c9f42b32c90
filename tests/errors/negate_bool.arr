entry main (b: bool) : bool =
  -b
