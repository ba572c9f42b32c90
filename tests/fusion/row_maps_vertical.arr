-- A map over rows making rows, then a map reducing them: one loop nest
-- whose inner map and reduction are one loop (`fusion::rows` merges the
-- two row maps), so the mapped rows are never stored.
-- ==
-- input { [[1, 2, 3], [4, 5, 6]] } output { [15, 33] }
-- random input { [100][50]i32 }
entry main [n][m] (xss: [n][m]i32) : [n]i32 =
  let yss = map (\r -> map (\x -> x * 2 + 1) r) xss
  in map (\r -> reduce (+) 0 r) yss
