-- A loop parameter declared unique consumes its initial value, here a
-- parameter declared without `*`.
entry main (xs: []i32) : []i32 =
  loop (ys: *[]i32) = xs for i < 3 do
    map (+ i32.i64 i) ys
