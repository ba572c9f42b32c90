-- A map returning rows writes each row in place of the output (no copy);
-- the transposed matrix is read by rows.
entry main [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  let bt = transpose b
  in map (\row -> map (\col -> reduce (+) 0.0f32 (map2 (*) row col)) bt) a
