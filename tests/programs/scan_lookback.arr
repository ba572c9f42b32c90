-- Scans and compactions whose operators or bodies can fail, over enough
-- iterations that shrunk GPU launches (ARRC_GPU_SHRINK=1) cut them into
-- many tiles: the single-pass look-back kernel must report the first
-- failure in sequential order and otherwise the sequential results.

-- ==
-- entry: checked_max
-- input { 5000i64 -1i64 } output { 4988421i64 999i64 }
-- input { 5000i64 3000i64 } error: ^assertion failed at .*scan_lookback\.arr:16:
-- input { 5000i64 20i64 } error: ^assertion failed at .*scan_lookback\.arr:16:

-- A running maximum whose operator checks its operands (associative, so
-- the tiles may combine in any grouping, but it can fail).
entry checked_max (n: i64) (k: i64) : (i64, i64) =
  let xs = map (\i -> if i == k then -1 else (i * 7919) % 1000) (iota n)
  let ys = scan (\a b -> assert (a >= 0 && b >= 0) (i64.max a b)) 0 xs
  in (reduce (+) 0 ys, ys[n - 1])

-- ==
-- entry: last_positive_checked
-- input { 6000i64 -1i64 } output { 874649i64 67i64 }
-- input { 6000i64 4500i64 } error: ^assertion failed at .*scan_lookback\.arr:27:

-- The last positive value so far: associative, not commutative, failing.
entry last_positive_checked (n: i64) (k: i64) : (i64, i64) =
  let xs = map (\i -> if i == k then -777 else (i * 7919) % 1000 - 500) (iota n)
  let ys = scan (\a b -> assert (b != -777) (if b > 0 then b else a)) 0 xs
  in (reduce (+) 0 ys, ys[n - 1])

-- ==
-- entry: filter_checked
-- input { 7000i64 -1i64 } output { 3500i64 2468i64 6998i64 }
-- input { 7000i64 5100i64 } error: ^index 1000 out of bounds for array of length 10 at .*scan_lookback\.arr:40:
-- input { 7000i64 10i64 } error: ^index 1000 out of bounds for array of length 10 at .*scan_lookback\.arr:40:

-- A filter whose predicate indexes a table; the positions it keeps.
entry filter_checked (n: i64) (k: i64) : (i64, i64, i64) =
  let tbl = map (\j -> (j * 3) % 10) (iota 10)
  let is = map (\i -> if i == k then 1000 else (i * 7919) % 10) (iota n)
  let (ps, _) = unzip (filter (\(_, x) -> tbl[x] > 4) (zip (iota n) is))
  in (length ps, ps[1234], ps[length ps - 1])

-- ==
-- entry: neutral_first
-- input { 40i64 } output { 3940i64 196i64 }
-- input { 5000i64 } output { 62492500i64 24996i64 }

-- Running sums of 1, 5, 5, ... (1 + 5k) whose operator fails on the
-- neutral element and any of them but the first: the interpreter applies
-- it to the neutral element only with the first element. A carry-in once
-- started from the neutral element and combined the first totals into it.
entry neutral_first (n: i64) : (i64, i64) =
  let xs = map (\j -> if j == 0 then 1 else 5) (iota n)
  let ys = scan (\a b -> assert (a != 0 || b % 5 != 1 || b == 1) (a + b)) 0 xs
  in (reduce (+) 0 ys, ys[n - 1])
