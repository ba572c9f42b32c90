-- The tuple given for `t` has a unique component, `b`, and another, `a`,
-- that is the same array: the callee would update `b` under `a`
-- (Futhark's uniqueness-error25).
def f (t: ([]i32, *[]i32)) : i32 =
  let (a, b) = t
  let b[0] = 1337
  in a[0]

entry main (b: *[]i32) : i32 =
  let a = b
  in f (a, b)
