-- An anonymous function may not consume a variable bound outside it.
def zero (a: *[]i64) : i64 = let a[0] = 0 in a[0]

entry main (n: i64) : []i64 =
  let a = iota n
  in map (\i -> i + zero a) (iota 3)
