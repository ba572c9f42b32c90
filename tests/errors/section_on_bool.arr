entry main (bs: []bool) : []bool =
  map (+ 1) bs
