-- Lambda-invariant computations move out of the map; the index (which can
-- fail) stays inside, where it runs only if there are elements.
-- nodes: map=1 sub=2 mul=3 convert=1 index=1
-- top: mul=2 sub=1 convert=1 index=0
-- ==
-- input { [1i32, 2i32, 3i32] 2i32 } output { [24i32, 20i32, 16i32] }
-- input { empty([0]i32) 2i32 } output { empty([0]i32) }

entry main (xs: []i32) (k: i32) : []i32 =
  let n = length xs
  in map (\i -> let scale = k * 2
                let last = n - 1
                in xs[last - i] * scale + i32.i64 n * scale)
         (iota n)
