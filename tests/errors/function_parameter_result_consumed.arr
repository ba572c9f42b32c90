-- What a function parameter returns may alias what the function captured
-- (Futhark's uniqueness-error46), so consuming it consumes the parameter,
-- even in a definition no entry point uses.
def bump (f: i32 -> []i32) : i32 =
  let xs = f 1
  let xs[0] = xs[0] + 2
  in xs[0]

entry main (x: i32) : i32 = x
