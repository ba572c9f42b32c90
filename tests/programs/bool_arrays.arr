-- Arrays of bool in and out, and counting with a map-reduce.
-- ==
-- input { [1, -2, 3, 0] } output { [true, false, true, false] 2 }
-- input { [true, false] } error: argument 1

entry main (xs: []i32) : ([]bool, i32) =
  let pos = map (\x -> x > 0) xs
  in (pos, reduce (+) 0 (map (\b -> if b then 1 else 0) pos))
