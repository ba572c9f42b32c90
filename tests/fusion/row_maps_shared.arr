-- Two maps over the rows of one matrix share its read: they are merged
-- into one map whose function reduces each row twice, and those two
-- reductions are fused too, so every row is read once (issue 21, item 3).
-- ==
-- input { [[1f32, 2f32, 3f32], [4f32, -5f32, 6f32]] } output { [6f32, 5f32] [3f32, 6f32] }
-- random input { [100][10]f32 }
entry main [n] [m] (xss: [n][m]f32) : ([n]f32, [n]f32) =
  (map (\r -> reduce (+) 0 r) xss, map (\r -> reduce f32.max 0 r) xss)
