-- Inclusive prefix sum of n 32-bit integers (wrapping on overflow, so every
-- contender gets exactly the same result): 8 bytes moved per element.
-- ==
-- input { [1, 2, 3, 4, -10] } output { [1, 3, 6, 10, 0] }
-- input { [2147483647, 1] } output { [2147483647, -2147483648] }

-- ==
-- random input { [50000000]i32 }
-- tags { bench }
entry main [n] (xs: [n]i32) : [n]i32 =
  scan (+) 0 xs
