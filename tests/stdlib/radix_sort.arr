-- radix_sort: stable, least significant bit first.
-- ==
-- entry: sort_ints
-- input { 4 [5, 3, 9, 1, 3, 0] } output { [0, 1, 3, 3, 5, 9] }
-- input { 1 [3, 2, 1, 4] } output { [2, 4, 3, 1] }
-- input { 0 [3, 2, 1] } output { [3, 2, 1] }
-- input { 8 empty([0]i32) } output { empty([0]i32) }

-- ==
-- entry: sort_pairs
-- input { [2, 1, 2, 0, 1] [0, 1, 2, 3, 4] } output { [0, 1, 1, 2, 2] [3, 1, 4, 0, 2] }

def bit (b: i32) (x: i32) : i32 = (x >> b) & 1

entry sort_ints (bits: i32) (xs: []i32) = radix_sort bits bit xs

-- Sorting by key only: equal keys keep their order.
entry sort_pairs (keys: []i32) (vals: []i32) =
  unzip (radix_sort 2 (\b (k, _) -> bit b k) (zip keys vals))
