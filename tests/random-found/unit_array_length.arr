-- An array of `()` made by a map loses its length (0), and a map over it
-- gives an empty array; `arrc random --unit-arrays` generates these.
-- Fixed on branch frontend (unit values lowered to a bool leaf).
-- ==
-- input { [1, 2, 3] }
-- output { 3i64 [7i32, 7i32, 7i32] [2i32, 3i32, 4i32] }

def main (xs: []i32) : (i64, []i32, []i32) =
  let us = map (\_ -> ()) xs
  in (length us, map (\_ -> 7) us, map (\((), x) -> x + 1) (zip (replicate (length xs) ()) xs))
