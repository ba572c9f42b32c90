-- sum of 0..n-1 squared, from iota.
-- ==
-- input { 4i64 } output { 14i64 }
-- input { 0i64 } output { 0i64 }
entry main (n: i64) : i64 =
  reduce (+) 0 (map (\i -> i * i) (iota n))
