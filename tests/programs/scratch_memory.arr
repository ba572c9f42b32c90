-- Arrays a parallel iteration makes and drops again live in per-thread
-- scratch memory (`loopy::scratch`): on the heap once per thread when
-- their size is only known at run time, on the stack when it is a small
-- constant. Each iteration must see only its own values.
-- ==
-- entry: spread
-- input { [0.0f32, 10.0f32, -2.0f32] [1.0f32, 2.0f32, 4.0f32] }
-- output { [15.0f32, 0.0f32, 27.0f32] }
-- input { [5.0f32] [5.0f32] } output { [0.0f32] }
-- random input { [1000]f32 [7]f32 } auto output

-- ==
-- entry: window
-- input { [1.0f32, 2.0f32, 3.0f32, 4.0f32] } output { [3.0f32, 6.0f32, 9.0f32, 7.0f32] }
-- random input { [1000]f32 } auto output

-- ==
-- entry: per_step
-- input { 3i64 [1i64, 2i64] } output { [6i64, 12i64] }
-- random input { 4i64 [500]i64 } auto output

-- The squared distances to every centre, kept as an array (indexed after
-- the reduction, so nothing fuses): the largest minus the first.
entry spread [n] [k] (xs: [n]f32) (cs: [k]f32) : [n]f32 =
  map (\x ->
    let ds = map (\c -> (x - c) * (x - c)) cs
    in if k == 0 then 0 else ds[argmax ds] - ds[0]) xs

-- A 3-element window in an array of constant size.
entry window [n] (xs: [n]f32) : [n]f32 =
  map (\i ->
    let w = map (\d -> let j = i + d - 1 in if j < 0 || j >= n then 0 else xs[j]) (iota 3)
    in w[0] + w[1] + w[2] + (if w[1] > 0 then 0 else 1)) (iota n)

-- A scratch array inside a sequential loop of each iteration.
entry per_step [n] (steps: i64) (xs: [n]i64) : [n]i64 =
  map (\x ->
    loop acc = 0i64 for s < steps do
      let v = map (\j -> x * (j + 1)) (iota 3)
      in acc + v[s % 3]) xs
