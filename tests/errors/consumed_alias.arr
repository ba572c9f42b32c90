def fill (xs: *[]i32) : *[]i32 = map (\_ -> 0) xs

entry main (xs: *[]i32) : []i32 =
  let view = xs[1:]
  let ys = fill xs
  in map2 (+) ys (view ++ [0])
