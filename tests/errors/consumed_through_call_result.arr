-- The result of `first` aliases its argument, so updating it in place
-- consumes `xs`, a parameter without `*`.
def first (xs: []i32) : []i32 = xs

entry main (xs: []i32) : []i32 =
  let ys = first xs
  let ys[0] = 42
  in ys
