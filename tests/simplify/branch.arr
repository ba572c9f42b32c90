-- Branch pruning: a constant condition, a condition known inside its own
-- branches, and equal branches.
-- nodes: if=1 gt=1 neq=0 eq=0
-- ==
-- input { 3i32 } output { 1i32 3i32 7i32 }
-- input { -3i32 } output { 0i32 -3i32 7i32 }

entry main (x: i32) : (i32, i32, i32) =
  let pos = x > 0
  let a = if pos then (if x > 0 then 1 else 2) else 0
  let b = if 1 == 1 then x else x + 1
  let c = if pos then 7 else 7
  in (a, b, c)
