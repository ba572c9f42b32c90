-- STREAM triad: a = b + s * c. Reads two arrays and writes one, 12 bytes per
-- element; its bandwidth is the yardstick for the memory-bound programs.
-- ==
-- input { 3.0f32 [1.0f32, 2.0f32] [0.5f32, -1.0f32] } output { [2.5f32, -1.0f32] }

-- ==
-- random input { 3.0f32 [50000000]f32 [50000000]f32 }
-- tags { bench }
entry main [n] (s: f32) (b: [n]f32) (c: [n]f32) : [n]f32 =
  map2 (\x y -> x + s * y) b c
