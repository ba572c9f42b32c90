-- Modules' operators written infix (`x c32.+ y`), built-in operator symbols
-- redefined in a module and in a module type, operators as parameters, and
-- `M.(e)` opening a module over the locals.

module type num = {
  type t
  val + : t -> t -> t
  val * : t -> t -> t
}

module c32 = {
  type t = (f32, f32)
  -- Later definitions see the earlier ones: `*` comes first so that its
  -- `+` is still `f32`'s.
  def ((a, b): t) * ((c, d): t) : t = (a * c - b * d, a * d + b * c)
  def (a: t) + (b: t) : t = (a.0 + b.0, a.1 + b.1)
}

module poly (T: num) = {
  def sq (x: T.t) = x T.* x
  def add4 (x: T.t) (y: T.t) = T.(x + y + x + y)
}

module P = poly c32

def apply2 (+) (x: i32) (y: i32) : i32 = x + y

def ordered 't ((<=): t -> t -> bool) (a: t) (b: t) : bool = a <= b

module m = {
  def x = 2i32
  def y = 3i32
}

-- Each file an `import` names is loaded, also inside a module binding.
module v = import "lib/vec3"

-- ==
-- input { 1i32 }
-- output { -3f32 4f32 4f32 6f32 2f32 6f32 12 true 6 14f32 }
entry main (x: i32) =
  let (a, b) = P.sq (1, 2)
  let (c, d) = (1f32, 2f32) c32.+ (3, 4)
  let (e, f) = P.add4 (1, 2) (0, 1)
  in (a, b, c, d, e, f, apply2 (*) 3 4, ordered (>=) 2 1, x + m.(x + y),
      v.vdot (1, 2, 3) (1, 2, 3))
