-- A parametric module over a scalar module defines its own `+`, `-` and
-- `*` and still reaches the parameter's with `T.*` (as diku-dk/complex
-- does); `-` is defined infix after a parenthesised pattern.
module mk_complex (T: real) = {
  type complex = (T.t, T.t)
  def ((a, b): complex) + ((c, d): complex) : complex = (a T.+ c, b T.+ d)
  def ((a, b): complex) - ((c, d): complex) : complex = T.((a - c, b - d))
  def (*) ((a, b): complex) ((c, d): complex) : complex =
    (a T.* c T.- b T.* d, T.(b * c + a * d))
  def fma (x: complex) (y: complex) (z: complex) = x * y + z
  def mk (a: T.t) (b: T.t) : complex = (a, b)
}

module c32 = mk_complex f32
module c64 = mk_complex f64

-- ==
-- input { 1f32 2f32 3f32 4f32 }
-- output { -4f32 12f32 -2f32 -2f32 -4.0 12.0 }
entry main (a: f32) (b: f32) (c: f32) (d: f32) =
  let p = c32.fma (c32.mk a b) (c32.mk c d) (c32.mk 1 2)
  let q = c32.mk a b c32.- c32.mk c d
  let r = c64.(mk (f64.f32 a) (f64.f32 b) * mk (f64.f32 c) (f64.f32 d) + mk 1 2)
  in (p.0, p.1, q.0, q.1, r.0, r.1)
