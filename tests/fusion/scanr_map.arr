-- scanr fuses: the map before it and the map after it run in its
-- right-to-left loop, and the reduction beside it shares its read of `xs`
-- (combining each element in front of its accumulator: the operator, the
-- first element that is not -1, is not commutative).
-- ==
-- input { [-1, 5, 6, 7] } output { [35i32, 37, 27, 15] 5 }
-- random input { [1000]i32 }
entry main (xs: []i32) : ([]i32, i32) =
  let ys = scanr (+) 0 (map (\x -> x * 2) xs)
  let zs = map (\y -> y + 1) ys
  let first = reduce (\a b -> if a == -1 then b else a) (-1) xs
  in (zs, first)
