-- Constant folding on every scalar type (integers wrap), algebraic
-- identities, and a division by zero that must stay to fail at run time.
-- nodes: add=2 div=1 mul=0 sub=0 neg=0 not=0 convert=0 quot=0 and=0
-- ==
-- input { 5i32 true } output { 8i32 -128i8 255u8 true 6i32 2.5f64 -3i32 }

entry main (x: i32) (p: bool) : (i32, i8, u8, bool, i32, f64, i32) =
  let a = x + 0 + 3 * 1
  let b = 127i8 + 1i8
  let c = u8.i32 (-1)
  let d = !(!p) && true
  let e = x * 0 + (x - x) + 2 * 3 + (-(-x)) * 0
  let f = f64.i32 5 / 2.0
  let g = -7 // 2
  in (a, b, c, d, e, f, g)

entry trap (x: i32) : i32 =
  let unused = x / 0
  in x + 1
