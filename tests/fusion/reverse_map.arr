-- map through reverse into map: the reversal moves onto the input
-- (`fusion::permute`) and the consumer reads `xs` backwards, so the two
-- maps are one loop that writes nothing in between and no reversed copy.
-- ==
-- input { [1, 2, 3, 4] } output { [9, 7, 5, 3] }
-- random input { [1000]i32 }
entry main (xs: []i32) : []i32 =
  map (\x -> x + 1) (reverse (map (\x -> x * 2) xs))
