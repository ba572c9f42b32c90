-- A local function whose parameters' types only its calls give, reading
-- their fields (`let dot a b = a.0 * b.0 ...`): every call checks its body
-- with the argument types, as Futhark's inference does (nbody-gui,
-- smoothlife and ray in futhark-benchmarks).

-- ==
-- input { [1f32, 2f32] [3f32, 4f32] } output { [8.0f32, 11.0f32] 4.0f32 }

entry main (xs: []f32) (ys: []f32) =
  let dot a b = a.0 * b.0 + a.1 * b.1 + a.2 * b.2
  let biggest p q = if p.x >= q.x then p else q
  let r = reduce biggest {x = f32.lowest} (map (\y -> {x = y}) ys)
  in (map2 (\x y -> dot (x, y, 1) (1, 2, 1)) xs ys, r.x)
