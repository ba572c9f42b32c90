entry main (xs: []i64) : ([]i64, i64) =
  let n = length xs
  let rev = map (\i -> xs[n - 1 - i]) (iota n)
  let prefix = scan (+) 0 rev
  in (prefix, reduce (+) 0 prefix)
