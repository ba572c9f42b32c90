-- Every f32 and f64 function of the scalar modules, the constants, rounding
-- (round is half to even), special values (NaN, infinities), atan2 y x, pow.

-- ==
-- entry: unary_f32
-- input { 0.5f32 }
-- output { 0.70710677f32 1.6487212f32 -0.69314718f32 -1.0f32 -0.30103001f32 0.47942555f32 0.87758255f32 0.5463025f32 0.52359879f32 1.0471976f32 0.4636476f32 0.52109528f32 1.1276259f32 0.46211717f32 0.52049989f32 }
-- input { 0.25f32 }
-- output { 0.5f32 1.2840254f32 -1.3862944f32 -2.0f32 -0.60206002f32 0.24740396f32 0.96891242f32 0.25534192f32 0.25268024f32 1.3181161f32 0.24497867f32 0.25261232f32 1.0314131f32 0.24491866f32 0.27632639f32 }

-- sqrt exp log log2 log10 sin cos tan asin acos atan sinh cosh tanh erf
entry unary_f32 (x: f32) : (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) =
  (f32.sqrt x, f32.exp x, f32.log x, f32.log2 x, f32.log10 x, f32.sin x, f32.cos x, f32.tan x, f32.asin x, f32.acos x, f32.atan x, f32.sinh x, f32.cosh x, f32.tanh x, f32.erf x)

-- ==
-- entry: unary_big_f32
-- input { 3.0f32 }
-- output { 1.7320508f32 20.085537f32 1.0986123f32 1.5849625f32 0.47712126f32 0.14112f32 -0.9899925f32 1.2490457f32 0.99505478f32 }
-- input { 10.0f32 }
-- output { 3.1622777f32 22026.465f32 2.3025851f32 3.321928f32 1.0f32 -0.54402113f32 -0.83907151f32 1.4711276f32 1.0f32 }

entry unary_big_f32 (x: f32) : (f32, f32, f32, f32, f32, f32, f32, f32, f32) =
  (f32.sqrt x, f32.exp x, f32.log x, f32.log2 x, f32.log10 x, f32.sin x, f32.cos x, f32.atan x, f32.tanh x)

-- ==
-- entry: binary_f32
-- input { 1.0f32 -1.0f32 } output { 2.3561945f32 2.0f32 1.0f32 -1.0f32 }
-- input { -2.0f32 0.0f32 } output { -1.5707964f32 1.0f32 0.0f32 -2.0f32 }
-- input { 0.5f32 2.0f32 } output { 0.24497867f32 1.7320508f32 2.0f32 0.5f32 }

-- atan2 y x takes y first; pow; max; min.
entry binary_f32 (y: f32) (x: f32) : (f32, f32, f32, f32) =
  (f32.atan2 y x, f32.pow (f32.abs x + 1) y, f32.max x y, f32.min x y)

-- ==
-- entry: unary_f64
-- input { 0.5f64 }
-- output { 0.707106781187f64 1.6487212707f64 -0.69314718056f64 -1.0f64 -0.301029995664f64 0.479425538604f64 0.87758256189f64 0.546302489844f64 0.523598775598f64 1.0471975512f64 0.463647609001f64 0.521095305494f64 1.12762596521f64 0.46211715726f64 0.520499877813f64 }
-- input { 0.25f64 }
-- output { 0.5f64 1.28402541669f64 -1.38629436112f64 -2.0f64 -0.602059991328f64 0.247403959255f64 0.968912421711f64 0.255341921221f64 0.252680255142f64 1.31811607165f64 0.244978663127f64 0.252612316808f64 1.03141309988f64 0.244918662404f64 0.276326390168f64 }

-- sqrt exp log log2 log10 sin cos tan asin acos atan sinh cosh tanh erf
entry unary_f64 (x: f64) : (f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64) =
  (f64.sqrt x, f64.exp x, f64.log x, f64.log2 x, f64.log10 x, f64.sin x, f64.cos x, f64.tan x, f64.asin x, f64.acos x, f64.atan x, f64.sinh x, f64.cosh x, f64.tanh x, f64.erf x)

-- ==
-- entry: unary_big_f64
-- input { 3.0f64 }
-- output { 1.73205080757f64 20.0855369232f64 1.09861228867f64 1.58496250072f64 0.47712125472f64 0.14112000806f64 -0.9899924966f64 1.2490457724f64 0.995054753687f64 }
-- input { 10.0f64 }
-- output { 3.16227766017f64 22026.4657948f64 2.30258509299f64 3.32192809489f64 1.0f64 -0.544021110889f64 -0.839071529076f64 1.4711276743f64 0.999999995878f64 }

entry unary_big_f64 (x: f64) : (f64, f64, f64, f64, f64, f64, f64, f64, f64) =
  (f64.sqrt x, f64.exp x, f64.log x, f64.log2 x, f64.log10 x, f64.sin x, f64.cos x, f64.atan x, f64.tanh x)

-- ==
-- entry: binary_f64
-- input { 1.0f64 -1.0f64 } output { 2.35619449019f64 2.0f64 1.0f64 -1.0f64 }
-- input { -2.0f64 0.0f64 } output { -1.57079632679f64 1.0f64 0.0f64 -2.0f64 }
-- input { 0.5f64 2.0f64 } output { 0.244978663127f64 1.73205080757f64 2.0f64 0.5f64 }

-- atan2 y x takes y first; pow; max; min.
entry binary_f64 (y: f64) (x: f64) : (f64, f64, f64, f64) =
  (f64.atan2 y x, f64.pow (f64.abs x + 1) y, f64.max x y, f64.min x y)

-- ==
-- entry: rounding
-- input { [0.5f32, 1.5f32, 2.5f32, -0.5f32, -1.5f32, -2.5f32, 2.6f32, -2.6f32, 3.0f32] }
-- output { [0.0f32, 2.0f32, 2.0f32, -0.0f32, -2.0f32, -2.0f32, 3.0f32, -3.0f32, 3.0f32]
--          [0.0f32, 1.0f32, 2.0f32, -1.0f32, -2.0f32, -3.0f32, 2.0f32, -3.0f32, 3.0f32]
--          [1.0f32, 2.0f32, 3.0f32, -0.0f32, -1.0f32, -2.0f32, 3.0f32, -2.0f32, 3.0f32]
--          [0.0f32, 1.0f32, 2.0f32, -0.0f32, -1.0f32, -2.0f32, 2.0f32, -2.0f32, 3.0f32] }

-- round (halves to even), floor, ceil, trunc.
entry rounding (xs: []f32) : ([]f32, []f32, []f32, []f32) =
  (map f32.round xs, map f32.floor xs, map f32.ceil xs, map f32.trunc xs)

-- ==
-- entry: rounding_f64
-- input { [0.5, 1.5, 2.5, -2.5, 3.5, 4.5, -3.7, 1e15] }
-- output { [0.0, 2.0, 2.0, -2.0, 4.0, 4.0, -4.0, 1e15] [0.0, 1.0, 2.0, -3.0, 3.0, 4.0, -4.0, 1e15]
--          [1.0, 2.0, 3.0, -2.0, 4.0, 5.0, -3.0, 1e15] [0.0, 1.0, 2.0, -2.0, 3.0, 4.0, -3.0, 1e15] }

entry rounding_f64 (xs: []f64) : ([]f64, []f64, []f64, []f64) =
  (map f64.round xs, map f64.floor xs, map f64.ceil xs, map f64.trunc xs)

-- ==
-- entry: specials
-- input { 0.0f32 } output { f32.inf -f32.inf f32.nan true true false f32.nan }
-- input { -1.0f32 } output { -1.0f32 -1.0f32 f32.nan true true false f32.nan }

-- 1/0 is infinity, log 0 is -infinity, sqrt of a negative number is NaN;
-- isnan / isinf; NaN compares unequal to itself.
entry specials (x: f32) : (f32, f32, f32, bool, bool, bool, f32) =
  let inv = if x == 0 then 1 / x else x
  let lg = if x == 0 then f32.log x else x
  in (inv, lg, f32.sqrt (x - 1), f32.isinf (1 / 0 + x) , f32.isnan (f32.sqrt (-1 + x)), f32.nan == f32.nan, x * f32.nan)

-- ==
-- entry: constants
-- input { 1.0 } output { 3.1415926535898 2.718281828459 f64.inf f64.nan 3.1415927f32 2.7182817f32 true false }

entry constants (x: f64) : (f64, f64, f64, f64, f32, f32, bool, bool) =
  (f64.pi * x, f64.e * x, f64.inf * x, f64.nan, f32.pi, f32.e, f64.isinf (-f64.inf), f64.isnan f64.inf)

-- ==
-- entry: highest_lowest
-- input { 0.0f32 } output { f32.inf -f32.inf f64.inf -f64.inf }

-- `f32.highest` is infinity, as in Futhark.
entry highest_lowest (x: f32) : (f32, f32, f64, f64) =
  (f32.highest + x, f32.lowest + x, f64.highest, f64.lowest)

-- ==
-- entry: float_pow_op
-- input { 2.0 10.0 } output { 1024.0 -1024.0 0.5 }
-- input { 9.0 0.5 } output { 3.0 -3.0 0.5 }

-- `**` on floats, and `-a ** b` is `-(a ** b)`.
entry float_pow_op (a: f64) (b: f64) : (f64, f64, f64) =
  (a ** b, -a ** b, 2 ** (-1))

-- ==
-- entry: f32_overflow
-- input { 3e38f32 } output { f32.inf 3e39 }

-- f32 arithmetic is single precision: 3e38 * 10 overflows to infinity in
-- f32 but not once converted to f64.
entry f32_overflow (x: f32) : (f32, f64) = (x * 10, f64.f32 x * 10)
