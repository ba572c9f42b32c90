-- Two components of a unique result may not be one array.
entry main (n: i64) : (*[]i64, *[]i64) =
  let a = iota n
  in (a, a)
