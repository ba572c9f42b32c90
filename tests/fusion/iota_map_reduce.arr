-- sum of 0..n-1 squared, from iota.
entry main (n: i64) : i64 =
  reduce (+) 0 (map (\i -> i * i) (iota n))
