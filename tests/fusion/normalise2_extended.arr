-- normalise2 with xs computed by a map first (the thesis's extended form):
-- the thesis's optimum puts xs into the first cluster diagonally and writes
-- it for the second; arrc recomputes the cheap map in both clusters.
-- ==
-- random input { [1000]f32 }
entry main (input: []f32) : ([]f32, []f32) =
  let xs = map (\x -> x * 2) input
  let sum1 = reduce (+) 0 xs
  let scn = scan (+) 0 xs
  let sum2 = reduce (+) 0 scn
  let ys1 = map (\x -> x / sum1) xs
  let ys2 = map (\x -> x / sum2) xs
  in (ys1, ys2)
