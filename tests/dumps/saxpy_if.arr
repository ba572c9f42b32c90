def saxpy (a: f32) (xs: []f32) (ys: []f32) : []f32 =
  map2 (\x y -> a * x + y) xs ys

entry main (a: f32) (xs: []f32) (ys: []f32) (clip: bool) : []f32 =
  let zs = saxpy a xs ys
  in if clip then map (\z -> if z > 1 then 1 else z) zs else zs
