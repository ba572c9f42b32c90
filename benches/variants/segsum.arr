-- A segmented sum: `scan` with an operator on (flag, value) pairs (issue
-- 20; timed against segsum.c by run.py).
-- ==
-- input { [true, false, false, true, false] [1.0f32, 2.0f32, 3.0f32, 4.0f32, 5.0f32] }
-- output { [1.0f32, 3.0f32, 6.0f32, 4.0f32, 9.0f32] }
-- random input { [37]bool [37]f32 } auto output

-- ==
-- random input { [10000000]bool [10000000]f32 }
-- tags { bench }

entry main [n] (flags: [n]bool) (vals: [n]f32) : [n]f32 =
  let (_, sums) =
    unzip (scan (\(fa, a) (fb, b) -> (fa || fb, if fb then b else a + b))
                (false, 0f32) (zip flags vals))
  in sums
