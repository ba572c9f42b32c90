-- Components of a tuple parameter declared unique one by one may not be
-- given one array twice either.
def sum_first (ar: *[]i64, a: *[][]i64) : i64 = ar[0] + a[0, 0]

entry main (n: i64) : i64 =
  let a = replicate n (iota n)
  in sum_first (a[0], a)
