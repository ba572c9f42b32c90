-- A program's own `sum` shadows the standard library's for plain calls, but
-- the scalar modules' reductions (`f64.sum`, `i32.maximum`, ...) stay the
-- standard library's at the module's type, as Futhark's module members do.
-- ==
-- input { [1.5, 2.5] [3, 1, 2] } output { 44 4.0f64 3 6 1 }

def sum (xs: []i32) : i32 = 42 + i32.i64 (length xs)
def maximum (xs: []i32) : i32 = -(i32.i64 (length xs))

entry main (fs: []f64) (ns: []i32) : (i32, f64, i32, i32, i32) =
  (sum [1, 2], f64.sum fs, i32.maximum ns, i32.sum ns, i32.minimum ns)
