-- maps over arrays of different sizes never share a loop.
-- ==
-- random input { [1000]i32 [1000]i32 }
entry main (xs: []i32) (ys: []i32) : ([]i32, []i32) =
  (map (+ 1) xs, map (+ 2) ys)
