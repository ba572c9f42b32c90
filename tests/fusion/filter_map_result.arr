-- filter followed by a map whose result is returned: the map runs under
-- the predicate and its results are compacted in the filter's loop; the
-- kept elements themselves are never written.
-- ==
-- input { [1i32, -5i32, 2i32, 0i32, 7i32] } output { [3i32, 5i32, 15i32] 3i64 }
-- input { empty([0]i32) } output { empty([0]i32) 0i64 }
-- random input { [1000]i32 }
entry main (xs: []i32) : ([]i32, i64) =
  let ys = filter (> 0) xs
  let zs = map (\y -> y * 2 + 1) ys
  in (zs, length ys)
