-- scanr after scan: the scan writes left to right and scanr reads right to
-- left, so they cannot share a loop (the scan's result is manifest).
-- ==
-- input { [1, 2, 3, 4] } output { [20, 19, 16, 10] }
-- random input { [1000]i32 }
entry main (xs: []i32) : []i32 =
  scanr (+) 0 (scan (+) 0 xs)
