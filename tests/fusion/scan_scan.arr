-- two scans in sequence fuse: both run left to right.
-- ==
-- random input { [1000]i32 }
entry main (xs: []i32) : []i32 =
  scan (+) 0 (scan (+) 0 xs)
