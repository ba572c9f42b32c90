def total 't (xs: []t) : t = reduce (+) 0 xs

entry main (bs: []bool) : bool =
  total bs
