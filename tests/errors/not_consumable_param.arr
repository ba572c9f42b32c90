-- A parameter without `*` may not be updated in place.
entry main (xs: []i32) : []i32 =
  let xs[0] = 1
  in xs
