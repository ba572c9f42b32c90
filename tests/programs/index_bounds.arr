-- Indexing is bounds-checked; the error names the index expression's location.
-- ==
-- input { [10, 20, 30] 1i64 } output { 20 }
-- input { [10, 20, 30] 2i64 } output { 30 }
-- input { [10, 20, 30] 3i64 } error: index 3 out of bounds for array of length 3 at .*index_bounds.arr:9:3
-- input { [10, 20, 30] -1i64 } error: index -1 out of bounds

entry main (xs: []i32) (i: i64) : i32 =
  xs[i]
