-- no fusion across an if: the map before it and the maps inside it are
-- separate loops, while the two maps inside one branch fuse.
-- ==
-- input { true [1, 2, 3] } output { [10, 12, 14] }
-- input { false [1, 2, 3] } output { [2, 3, 4] }
entry main (b: bool) (xs: []i32) : []i32 =
  let ys = map (+ 1) xs
  in if b then map (* 2) (map (+ 3) ys) else ys
