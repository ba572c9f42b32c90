entry main (xs: []f32) : f32 =
  reduce (\a b -> a && b) 0 xs
