-- The declared type takes the array without `*`, but the function
-- given consumes it.
def reset (xs: *[]f32) : f32 =
  let xs[0] = 0
  in xs[0]

entry main : []f32 -> f32 = reset
