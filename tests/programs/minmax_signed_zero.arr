-- `f64.max` and `f64.min` of zeros of both signs may give either zero, as
-- C's fmin/fmax (the interpreter gives the first operand, compiled code
-- LLVM's maxnum/minnum: +0.0 when constant-folded, the second operand on
-- x86), so `arrc test` and the random tester compare zeros without their
-- sign (found by the random tester, seed 200217).
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
