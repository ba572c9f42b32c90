-- Reversed and rotated inputs are read through their index functions:
-- each consumer reads the source at the composed index and no permuted
-- copy is made. The reduction is not commutative (the first element that
-- is not -1), so reading in the wrong order would show.
-- ==
-- input { [-1, 5, 6, 7, 8, -1] } output { 8 [21i32, 24, -3, -3, 15, 18] }
-- random input { [1000]i32 }
entry main (xs: []i32) : (i32, []i32) =
  let first = reduce (\a b -> if a == -1 then b else a) (-1) (reverse xs)
  let rotated = map (\x -> x * 3) (rotate 3 xs)
  in (first, rotated)
