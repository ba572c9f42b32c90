-- maps inside a sequential loop: the loop body is clustered on its own
-- (the two maps fuse), nothing fuses across the loop boundary.
-- ==
-- input { [1, 2, 3] 2 } output { [7, 11, 15] }
-- random input { [1000]i32 5 }
entry main (xs: []i32) (k: i32) : []i32 =
  loop acc = xs for _i < k do
    map (+ 1) (map (* 2) acc)
