-- Sums into many bins: `reduce_by_index` with f32 `+` (issue 20; timed
-- against binsum.c by run.py).
-- ==
-- input { 3i64 [0, 4, 5, -7, 2] [1.0f32, 2.0f32, 4.0f32, 8.0f32, 16.0f32] }
-- output { [1.0f32, 10.0f32, 20.0f32] }
-- random input { 10i64 [100]i32 [100]f32 } auto output

-- ==
-- random input { 100000i64 [20000000]i32 [20000000]f32 }
-- tags { bench }

entry main [n] (m: i64) (is: [n]i32) (vs: [n]f32) : [m]f32 =
  reduce_by_index (replicate m 0f32) (+) 0f32 (map (\i -> i64.i32 (i & 0x7fffffff) % m) is) vs
