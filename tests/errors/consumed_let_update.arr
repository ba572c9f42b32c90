-- `let a[i] = v` consumes `a`: `b`, which aliases it, is unusable after.
entry main (n: i64) : i64 =
  let a = iota n
  let b = a
  let a[0] = 1
  in a[0] + b[0]
