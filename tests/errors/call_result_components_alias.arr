-- `twice` returns its argument in both components: given a fresh copy,
-- the two components still share it.
def twice (v: []f32) = (v, v)

entry main (v: []f32) : (*[]f32, *[]f32) =
  twice (copy v)
