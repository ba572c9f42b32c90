-- Two row maps whose outer sizes a later map2 checks equal: the check
-- makes the outer sizes one class, but the rows (m and k columns) keep
-- classes of their own (fusion::graph; a debug build overflowed here).
-- ==
-- input { [[1f32, 2f32], [3f32, 4f32]] [[1f32, 2f32, 3f32], [4f32, 5f32, 6f32]] [1f32, 1f32] [2f32, 2f32, 2f32] }
-- output { [3f32, 7f32] [180f32, 1110f32] }
entry main [n][m][k] (x: [n][m]f32) (y: [n][k]f32) (v: [m]f32) (u: [k]f32) : ([]f32, []f32) =
  let a = map (\r -> f32.sum (map2 (*) r v)) x
  let b = map (\r -> f32.sum (map2 (*) r u)) y
  let c = map2 (+) a b
  in (a, map2 (*) b c)

-- ==
-- entry: main
-- input { empty([0][2]f32) empty([0][3]f32) [1f32, 1f32] [2f32, 2f32, 2f32] }
-- output { empty([0]f32) empty([0]f32) }
-- input { [[1f32, 2f32]] [[1f32, 2f32, 3f32], [4f32, 5f32, 6f32]] [1f32, 1f32] [2f32, 2f32, 2f32] }
-- error: size mismatch
