-- a reduction and a scan reading the same array fuse horizontally.
-- ==
-- random input { [1000]i32 }
entry main (xs: []i32) : (i32, []i32) =
  (reduce (+) 0 xs, scan (+) 0 xs)
