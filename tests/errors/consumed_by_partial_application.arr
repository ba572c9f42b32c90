-- `set0 a` consumes `a` once, when it is built, but `map` calls it for
-- every element (Futhark's uniqueness-error12).
def set0 (a: *[]i64) (i: i64) : []i64 =
  let a[i] = 0
  in a

entry main (n: i64) : [][]i64 =
  let a = iota n
  let b = iota n
  in map (set0 a) b
