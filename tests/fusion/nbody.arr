-- n-body style: for each body, a reduction over all bodies. The inner map
-- and reduce run inside the outer map's loop: no n*n array ever exists.
-- ==
-- input { [0.0f32, 1.0f32, 3.0f32] } output { [4.0f32, 3.0f32, 5.0f32] }
-- random input { [300]f32 }
entry main (xs: []f32) : []f32 =
  map (\x -> reduce (+) 0 (map (\y -> f32.abs (x - y)) xs)) xs
