-- a reduction's result used inside a map's function: the map must wait
-- for the whole reduction (fusion-preventing edge).
-- ==
-- random input { [1000]f32 }
entry main (xs: []f32) : []f32 =
  let total = reduce (+) 0 xs
  in map (\x -> x / total) xs
