-- Both loop parameters are declared unique, so each must own its array
-- in the next iteration; the body gives them the same one.
entry main (n: i64) : ([]i32, []i32) =
  loop (xs: *[]i32, ys: *[]i32) = (replicate n 0, replicate n 1)
  for i < 3 do
    let xs[i] = i32.i64 i
    in (xs, xs)
