-- A tuple parameter whose arrays are all unique consumes the arrays of
-- its argument.
def first_of (t: (i32, *[]i32)) : i32 = (t.1 with [0] = t.0)[0]

entry main (n: i64) : i32 =
  let xs = replicate n 0i32
  let pair = (5, xs)
  let v = first_of pair
  in v + xs[0]
