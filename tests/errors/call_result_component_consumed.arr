-- The components of `pair`'s result are one array, so updating `a` in
-- place consumes `b` as well.
def pair (n: i64) : ([]i64, []i64) =
  let r = iota n
  in (r, r)

entry main (n: i64) : ([]i64, []i64) =
  let (a, b) = pair n
  let a[0] = 42
  in (a, b)
