-- A module may share its name with a prelude function (`outer`, `sum`):
-- `outer.x` is the module's member (values and modules are separate
-- namespaces), and the function stays callable. A nested `module`
-- specification ascribes an inner module.

module outer : { val x : i32 module inner : { val y : i32 } } = {
  module inner : { val y : i32 } = {
    def y = 5
  }
  def x = inner.y * 3
}

module sum = { def twice (v: i32) = v + v }

-- ==
-- input { [1, 2] [3, 4] }
-- output { 15 5 [[3, 4], [6, 8]] 14 }
entry main (a: []i32) (b: []i32) : (i32, i32, [][]i32, i32) =
  (outer.x, outer.inner.y, outer a b, sum.twice (i32.sum b))
