-- `a` and `b` are both the array `y`: updating `a` consumes `y`, so `b`
-- may not be used afterwards.
entry main (n: i64) : ([]i64, []i64) =
  let (a, b) =
    let y = iota n
    in (y, y)
  let a[0] = 0
  let b[0] = 1
  in (a, b)
