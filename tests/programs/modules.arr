-- The module system: modules, module types with `val` and `type` specs,
-- ascription, parametric modules and their application, `with`
-- refinements, `open`, `local`, qualified names and operators,
-- and local opens; `include` in module types `M.(e)`.

module type monoid = {
  type t
  val op : t -> t -> t
  val ne : t
}

module add_i32 : monoid with t = i32 = {
  type t = i32
  def op (x: i32) (y: i32) = x + y
  def ne : i32 = 0
}

module max_f32 : monoid with t = f32 = {
  type t = f32
  def op (x: f32) (y: f32) = f32.max x y
  def ne : f32 = -f32.inf
}

-- A parametric module, applied twice.
module fold (M: monoid) = {
  def fold (xs: []M.t) : M.t = reduce M.op M.ne xs
  def twice (x: M.t) : M.t = M.op x x
}

module S = fold add_i32
module F = fold max_f32

module geometry = {
  type point = {x: f32, y: f32}
  local def sq (a: f32) = a * a
  def norm2 (p: point) : f32 = sq p.x + sq p.y
  module inner = {
    def origin : point = {x = 0, y = 0}
  }
}

module type has_ne = {
  include monoid
  val twice_ne : t
}

module add_more : has_ne with t = i32 = {
  open add_i32
  def twice_ne : i32 = op ne ne
}

module more = {
  open geometry
  def dist2 (a: geometry.point) (b: geometry.point) : f32 =
    norm2 {x = a.x - b.x, y = a.y - b.y}
}

open more

-- ==
-- entry: sums
-- input { [1, 2, 3] [1f32, 5f32, 2f32] }
-- output { 6 12 5f32 0 }
entry sums (xs: []i32) (ys: []f32) : (i32, i32, f32, i32) =
  (S.fold xs, S.twice (S.fold xs), F.fold ys, add_more.twice_ne)

-- ==
-- entry: points
-- input { 3f32 4f32 }
-- output { 25f32 25f32 0f32 }
entry points (a: f32) (b: f32) : (f32, f32, f32) =
  let p = {x = a, y = b}
  in (geometry.norm2 p, dist2 p geometry.inner.origin, norm2 inner.origin)

-- ==
-- entry: qualified
-- input { [1, 2, 3] 2f32 }
-- output { 6 [2, 4, 6] 7f32 true }
entry qualified (xs: []i32) (x: f32) : (i32, []i32, f32, bool) =
  (reduce (i32.+) 0 xs, map ((i32.*) 2) xs, f32.(x * x + 3), i64.(3 > 2))
