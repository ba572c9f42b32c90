-- A top-level constant is shared by every use: `scale` may update its
-- argument in place, so it may not be given `weights`.
def weights : []f32 = [0.5, 0.25, 0.25]

def scale (xs: *[]f32) : *[]f32 =
  let xs[0] = xs[0] * 2
  in xs

entry main (x: f32) : []f32 =
  let w = weights
  in map (* x) (scale w)
