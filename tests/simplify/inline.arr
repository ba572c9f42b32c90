-- A binding read in one branch only moves into that branch, so the map
-- and its consumer end up side by side (and can fuse).
-- nodes: map=2 reduce=1 if=1
-- top: map=0 reduce=0 if=1
-- ==
-- input { true [1i32, 2i32] } output { 10i32 }
-- input { false [1i32, 2i32] } output { 0i32 }

entry main (b: bool) (xs: []i32) : i32 =
  let ys = map (\x -> x * 2) xs
  let zs = map (\y -> y + 2) ys
  in if b then reduce (+) 0 zs else 0
