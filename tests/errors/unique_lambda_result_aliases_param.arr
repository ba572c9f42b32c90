-- An anonymous function's result declared unique may not alias one of its
-- parameters declared without `*`, as for a `def`.
entry main (xss: [][]i32) : [][]i32 =
  map (\(row: []i32) : *[]i32 -> row) xss
