-- `f64.max` and `f64.min` of zeros of both signs: the interpreter returns
-- the first operand (as C's fmax does in glibc); compiled code calls
-- LLVM's maxnum/minnum, whose sign of zero is unspecified: LLVM's constant
-- folding gives +0.0 for a max (`folded`, even at -O0), x86's maxsd the
-- second operand (`main` at -O3). The contract names C's fmin/fmax, which
-- leave the sign open, yet the tests compare min/max results bit for bit.
-- Found by the random tester (seed 200217): `arrc test
-- minmax_signed_zero.arr` (and `-O0`).
-- ==
-- input { [-0.0, 0.0] [0.0, -0.0] }
-- output { [-0.0, 0.0] [0.0, -0.0] [-0.0, 0.0] [0.0, -0.0] }

entry main (xs: []f64) (ys: []f64) : ([]f64, []f64, []f64, []f64) =
  (map2 f64.max xs ys, map2 f64.max ys xs, map2 f64.min xs ys, map2 f64.min ys xs)

-- ==
-- entry: folded
-- input { [1, 2] }
-- output { [-0.0, -0.0] }

entry folded (xs: []i32) : []f64 =
  map (\_ -> f64.max (0f64 * (-1.25f64)) 0f64) xs
