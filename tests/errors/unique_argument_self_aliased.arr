-- A tuple given for a unique parameter may not hold one array twice.
def first_row (t: (*[]i64, *[][]i64)) : i64 = t.0[0] + t.1[0, 0]

entry main (n: i64) : i64 =
  let a = replicate n (iota n)
  in first_row (a[0], a)
