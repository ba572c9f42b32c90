-- Dead pure code goes (a whole unused map too); an unused index and an
-- unused division by a variable stay, since they can fail.
-- nodes: map=1 index=1 div=1 mul=1
-- ==
-- input { [1i32, 2i32, 3i32] 1i64 2i32 } output { [2i32, 4i32, 6i32] }
-- input { [1i32, 2i32, 3i32] 7i64 2i32 } error: out of bounds
-- input { [1i32, 2i32, 3i32] 0i64 0i32 } error: division by zero

entry main (xs: []i32) (i: i64) (k: i32) : []i32 =
  let unused_map = map (\x -> x + 100) xs
  let unused_scalar = k * 3 + 1
  let unused_index = xs[i]
  let unused_div = 10 / k
  in map (\x -> x * 2) xs
