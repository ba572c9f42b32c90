-- The worked example of seed 000 ("Optimisation Techniques"): everything
-- but `x * 21 * 2` folds away; only --fast-math may reassociate it into
-- one multiplication by 42.
-- nodes: mul=2 if=0 div=0 sub=0 gt=0 add=0
-- nodes fast-math: mul=1 if=0 div=0 sub=0 gt=0 add=0
-- ==
-- input { 1.0f32 } output { 42.0f32 }
-- input { -0.5f32 } output { -21.0f32 }

entry main (x: f32) : f32 =
  let a = (30f32, x)
  let b = 9f32 - a.0 / 5f32
  let c = b * b * 4f32
  let d = if c > f32.pi + 10f32 then c - 15f32 else x
  in x * d * (60f32 / a.0)
