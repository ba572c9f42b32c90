-- A loop's result aliases what its body returns: here a row of `rows`, a
-- parameter without `*`, so it cannot be the unique result.
def pick [m] (_: [m]i32) (row: [m]i32) : [m]i32 = row

entry main [n] [m] (rows: [n][m]i32) : *[m]i32 =
  loop acc = replicate m 0 for i < n do pick acc rows[i]
