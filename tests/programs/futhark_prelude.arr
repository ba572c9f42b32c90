-- What Futhark's users write beyond the contract's list: indices of any
-- signed integer type, the scalar modules' `num_bits`, `get_bit`, `set_bit`,
-- `ctz`, `sgn` and float functions, the prelude's `head`, `foldl`, `zip4`...,
-- and `def main` as an entry point.
-- ==
-- input { [10, 20, 30] 2 1i8 } output { 30 20 [10, 20, 7] }
-- input { [10, 20, 30] 3 0i8 } error: index 3 out of bounds
def main (xs: []i32) (k: i32) (j: i8) : (i32, i32, []i32) =
  (xs[k], xs[j], xs with [k] = 7)

-- ==
-- entry: gather_i16
-- input { [1.0, 2.0, 3.0] [2, 0, 2] } output { [3.0, 1.0, 3.0] }
-- input { [1.0, 2.0, 3.0] [2, -1] } error: index -1 out of bounds
entry gather_i16 (xs: []f32) (is: []i16) = map (\i -> xs[i]) is

-- ==
-- entry: bits
-- input { -13 130u8 }
-- output { 32 1 1 -13 0 1 -1 13 8 1u8 1 -29 3 }
-- input { 0 0u8 }
-- output { 32 0 0 16 32 8 0 0 8 0u8 0 0 3 }
entry bits (x: i32) (u: u8) =
  (i32.num_bits, i32.get_bit 31 x, i32.get_bit 0 x, i32.set_bit 4 x 1,
   i32.ctz x, u8.ctz u, i32.sgn x, i32.neg x, u8.num_bits, u8.sgn u,
   u8.get_bit 7 u, i32.set_bit 4 x 0, i64.ctz 8)

-- ==
-- entry: floats
-- input { 27.0 -2.5f32 }
-- output { 3.0 3.332204510175204 532048240600.79865 3.989326805819546
--          4.025032660551618 0.2768638226551001 27.294688127912362 55.0 2.5
--          true false 4628293042053316608u64 27.0 1 -1.0f32 1.1920929e-7f32 }
entry floats (x: f64) (y: f32) =
  (f64.cbrt x, f64.log1p x, f64.expm1 x, f64.asinh x, f64.acosh (x + 1),
   f64.atanh (x / 100), f64.hypot x 4, f64.mad x 2 1, f64.lerp 0 10 0.25,
   f64.isfinite x, f32.isfinite (y / 0), f64.to_bits x,
   f64.from_bits (f64.to_bits x), f32.get_bit 31 y, f32.sgn y, f32.epsilon)

-- ==
-- entry: signs
-- input { [-2.0, -0.0, 0.0, 3.5, f64.nan, f64.inf, -f64.inf] }
-- output { [-1.0, 0.0, 0.0, 1.0, f64.nan, 1.0, -1.0] }
entry signs (xs: []f64) = map f64.sgn xs

-- ==
-- entry: sorts
-- input { [5, 3, 4294967295, 0, 3] [3, -1, 2] }
-- output { [0u32, 3u32, 3u32, 5u32, 4294967295u32] [2i64, 3i64, -1i64] }
def sort_by_bits 't (bits: i32) (get: i32 -> t -> i32) (xs: []t) = radix_sort bits get xs
entry sorts (xs: []u32) (ys: []i64) =
  (radix_sort u32.num_bits u32.get_bit xs, sort_by_bits i64.num_bits i64.get_bit ys)

-- Type parameters reach the new members too.
-- ==
-- entry: generic
-- input { -2.5f32 -7i16 } output { 32 -1.0f32 16 -1i16 }
def width_and_sign 't (x: t) : (i32, t) = (t.num_bits, t.sgn x)
entry generic (x: f32) (y: i16) =
  let (a, b) = width_and_sign x
  let (c, d) = width_and_sign y
  in (a, b, c, d)

-- ==
-- entry: prelude
-- input { [1, 2, 3, 4] }
-- output { 1 4 [2, 3, 4] [1, 2, 3] [1, 2] [3, 4] [0i64, 1i64, 2i64, 3i64]
--          true true false 1234 4321 8 243 243 5 }
-- input { empty([0]i32) } error: out of bounds
entry prelude (xs: []i32) =
  let (a, b) = split 2 xs
  in (head xs, last xs, tail xs, init xs, a, b, indices xs,
      and (map (> 0) (copy xs)), or (map (> 2) xs), not true,
      foldl (\acc x -> acc * 10 + x) 0 xs, foldr (\x acc -> acc * 10 + x) 0 xs,
      iterate 3 (* 2) 1i32, iterate_while (< 100) (* 3) 1i32,
      iterate_until (> 100) (* 3) 1i32, id 5i32)

-- ==
-- entry: zips
-- input { [1, 2] [3.0, 4.0] [[[1, 2]], [[3, 4]]] }
-- output { [1, 2] [3.0f32, 4.0f32] [1, 2] [3.0f32, 4.0f32] [3.0f32, 4.0f32]
--          [[[1, 2], [3, 4]]] }
entry zips (xs: []i32) (ys: []f32) (t: [][][]i32) =
  let (a, b, c, d) = unzip4 (zip4 xs ys xs ys)
  let (_, _, _, _, e) = unzip5 (zip5 xs xs xs xs ys)
  in (a, b, c, d, e, unflatten_3d 1 2 2 (flatten_3d t))

-- The numeric modules' reductions, and the prelude's combinators.
-- ==
-- entry: modules
-- input { [1, 2, 3] [1.5, -2.0] [[1, 2], [3, 4]] }
-- output { 6i64 1.5f32 6i64 -2.0f32 [3u8, 7u8] 1 9 3 12 }
entry modules (xs: []i64) (ys: []f32) (m: [][]u8) =
  (i64.sum xs, f32.maximum ys, i64.product xs, f32.minimum ys, map u8.sum m,
   const 1i32 2.0, flip (-) 1i32 10, uncurry (+) (1i32, 2),
   curry (\(a, b) -> a * b) 3i32 4)
