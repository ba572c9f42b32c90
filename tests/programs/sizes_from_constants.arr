-- A size that names a global constant (`[r]t` with `def r = 3`, as
-- diku-dk/cpprandom writes inside a parametric module) is that constant,
-- computed and checked at run time; a definition with a size parameter no
-- parameter gives may stand unused (diku-dk/linalg's `mat`).
module gen (P: { val r : i32 }) = {
  def r = i64.i32 P.r
  type state = { x: [r]i32, k: i32 }
  def init (seed: i32) : state = { x = map (+ seed) (map i32.i64 (iota r)), k = 0 }
  def mat [m] [n] (v: i32) : [m][n]i32 = tabulate_2d m n (\_ _ -> v)
  def sum (s: state) = i32.sum s.x + s.k
}

module g3 = gen { def r = 3i32 }

-- ==
-- input { 10 }
-- output { 33 }
entry main (seed: i32) = g3.sum (g3.init seed)

-- A constant defined by a literal is a size that is checked.
def three : i64 = 3

-- ==
-- entry: sum3
-- input { [1i64, 2i64, 3i64] }
-- output { 6i64 }
-- input { [1i64, 2i64] }
-- error: size
entry sum3 (a: [three]i64) : i64 = i64.sum a

-- A constant computed by the program is checked at run time, in a
-- parameter's type, a return type and an ascription.
def four = i64.i32 (2i32 + 2i32)

def firsts (a: [four]i64) : [four]i64 = map (* 10) a

-- ==
-- entry: computed
-- input { [1i64, 2i64, 3i64, 4i64] }
-- output { [10i64, 20i64, 30i64, 40i64] 4i64 }
-- input { [1i64, 2i64, 3i64] }
-- error: size
entry computed (a: []i64) = (firsts (a :> [four]i64), length (iota four : [four]i64))
