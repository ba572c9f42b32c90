-- Size expressions in parameter types: a size parameter used only inside
-- `[2 * k]t` or `[n + 1]t` is solved from the argument's size at each call
-- (and the size checked against it), and Futhark's newer `split xs` and
-- `unflatten_3d xs` read their sizes off a sum `a + b` or a product
-- `a * b * c` written in the program.

def pairs [k] (ps: [2 * k]i32) : [k]i32 =
  map (\i -> ps[2 * i] + ps[2 * i + 1]) (iota k)

def tail1 [n] (xs: [n + 1]i32) : [n]i32 = xs[1:] :> [n]i32

def centre [m] (xs: [3 * m - 2]i32) : i64 = m

def halves (xs: []i32) =
  let (a, b) = split (xs :> [3 + 3]i32)
  in map2 (+) a b

def cube (n: i64) = unflatten_3d (iota (n * 2 * 3))

-- ==
-- input { [1, 2, 3, 4, 5, 6] }
-- output { [3, 7, 11] [2, 3, 4, 5, 6] 2i64 [5, 7, 9] [[[0i64, 1i64, 2i64], [3i64, 4i64, 5i64]]] }
-- input { [1, 2, 3, 4, 5] }
-- error: size
entry main (xs: []i32) =
  (pairs xs, tail1 xs, centre xs[:4], halves xs, cube 1)
