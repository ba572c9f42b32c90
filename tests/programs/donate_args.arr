-- Entry arguments overwritten in place (loopy::donate): a compiled
-- executable's entry may write an output into an array argument it no
-- longer reads. Where it may, the results show every element was read
-- before it was overwritten; where it must not (the argument is read again,
-- returned, read at another element, carried by a loop), a wrong write
-- into the argument changes the results.
-- ==
-- entry: saxpy
-- input { 2.0f32 [1f32, 2f32, 3f32, 4f32, 5f32] [10f32, 20f32, 30f32, 40f32, 50f32] }
-- output { [12f32, 24f32, 36f32, 48f32, 60f32] }
-- input { 0.5f32 empty([0]f32) empty([0]f32) } output { empty([0]f32) }
entry saxpy [n] (a: f32) (xs: [n]f32) (ys: [n]f32) : [n]f32 =
  map2 (\x y -> a * x + y) xs ys

-- The argument is read again, at another element, after the map.
-- ==
-- entry: read_after
-- input { [1, 2, 3, 4, 5] } output { [2, 3, 4, 5, 6] [5, 1, 2, 3, 4] }
entry read_after [n] (xs: [n]i32) : ([n]i32, [n]i32) =
  let ys = map (+ 1) xs
  let zs = map (\i -> xs[(i + n - 1) % n]) (iota n)
  in (ys, zs)

-- Each element also reads the one before it.
-- ==
-- entry: shifted
-- input { [1, 2, 3, 4] } output { [5, 3, 5, 7] }
entry shifted [n] (xs: [n]i32) : [n]i32 =
  map (\i -> xs[i] + xs[(i + n - 1) % n]) (iota n)

-- Returned as well as mapped.
-- ==
-- entry: returned
-- input { [1, 2, 3] } output { [2, 4, 6] [1, 2, 3] }
entry returned (xs: []i32) : ([]i32, []i32) = (map (* 2) xs, xs)

-- Mapped twice: the second map reads the argument after the first wrote
-- its output.
-- ==
-- entry: mapped_twice
-- input { [1, 2, 3] } output { [2, 3, 4] [10, 20, 30] }
entry mapped_twice (xs: []i32) : ([]i32, []i32) =
  let ys = map (+ 1) xs
  let zs = map (* 10) xs
  in (ys, zs)

-- A map's output and a sum of the argument it was written over.
-- ==
-- entry: map_and_sum
-- input { [1f32, 2f32, 3f32] [4f32, 5f32, 6f32] } output { [5f32, 7f32, 9f32] 15f32 }
entry map_and_sum [n] (xs: [n]f32) (ys: [n]f32) : ([n]f32, f32) =
  let zs = map2 (+) xs ys
  in (zs, reduce (+) 0 ys)

-- Updated in place, consumed or not, and scattered into.
-- ==
-- entry: update
-- input { [1, 2, 3] 1i64 } output { [1, 7, 3] }
-- input { [1, 2, 3] 3i64 } error: out of bounds
entry update (xs: *[]i32) (i: i64) : []i32 =
  let xs[i] = 7
  in xs

-- ==
-- entry: update_copy
-- input { [1, 2, 3] 2i64 } output { [1, 2, 7] [1, 2, 3] }
entry update_copy (xs: []i32) (i: i64) : ([]i32, []i32) =
  (xs with [i] = 7, xs)

-- ==
-- entry: scattered
-- input { [1, 2, 3, 4] [3i64, -1i64, 0i64] [30, 10, 0] } output { [0, 2, 3, 30] }
entry scattered (xs: *[]i32) (is: []i64) (vs: []i32) : []i32 =
  scatter xs is vs

-- A loop carries the argument: each iteration frees the value before.
-- ==
-- entry: looped
-- input { [1, 2, 3] 3i64 } output { [4, 5, 6] }
entry looped (xs: []i32) (n: i64) : []i32 =
  loop acc = xs for i < n do map (+ 1) acc
