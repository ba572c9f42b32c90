-- Seed 14,970,156 of `arrc random --cuts` (generator before its fix): a
-- float product reduced in another order. Lanes multiply the factors
-- after the leading 0 to inf, and 0 * inf is NaN, where the interpreter,
-- left to right, keeps 0. The contract lets `reduce` reassociate, so both
-- are right: a false report of the generator, which no longer reduces
-- floats by `*` (src/testgen/gen.rs, `Gen::op`). Not a test case.
-- Its input is the line below after `-- input: `.
-- input: [-1i32, 8i32, 0i32, 5i32, 8i32, -1i32, 8i32, 2i32, 3i32, 6i32, 7i32, -1i32, 8i32, 8i32, -3i32, 0i32, -2147483648i32, 7i32, -2147483648i32, 2i32, -1i32, -1i32, 2i32, 3i32, 7i32, -2i32, 0i32, 2147483647i32, -4i32, 8i32, 7i32, 4i32, 8i32, 8i32, 5i32, -2i32, 8i32, -4i32, 1i32, 1784139692i32] [-1i32, 5i32, 7i32, -2064896073i32, 0i32, 8i32, 0i32, 0i32, 3i32, 9i32, 9i32, 4i32, 8i32, 5i32, -2i32, -4i32, 9i32, -1i32, -5i32, -2147483648i32, 1i32, -5i32, 0i32, 4i32, 7i32, 8i32, 4i32, 1i32, 7i32, 6i32, 8i32, 7i32, 2i32, 5i32, 7i32, 6i32, 8i32, 2i32, -1i32, 3i32]
module type mono = { type t val op : t -> t -> t val ne : t }
module fold_m (M: mono) = { def total (xs: []M.t) : M.t = reduce M.op M.ne xs def running (xs: []M.t) : []M.t = scan M.op M.ne xs }
module fm45 = fold_m { type t = f32 def op (a: f32) (b: f32) : f32 = (+) a b def ne : f32 = 0f32 }
entry main (in0: []i32) (in2: []i32) : ([]f32) =
  let v15 = (map (\x10 -> 1f64) (map (\x7 -> 1f32) in0))
  let v39 = in2
  let v46 = (map (\x41 -> (reduce (*) 1f32 (fm45.running (exscan (+) 0f32 (tabulate (length v15) (\t44 -> 1.0f32)))))) in0)
  in (v46)
