-- `assert c e` checks `c` before anything of `e` runs (LANGUAGE.md §10),
-- also when fusion would otherwise schedule `e`'s work first: a failing
-- assertion is reported, not the division or index it guards.

-- ==
-- entry: guarded_division
-- input { 5 } output { 2 }
-- input { 0 } error: ^assertion failed at .*assert_first\.arr:10:41: Assertion is false: x != 0$

entry guarded_division (x: i32) : i32 = assert (x != 0) (10 / x)

-- ==
-- entry: guarded_index
-- input { [1, 2] 1i64 } output { 3 }
-- input { [1, 2] 5i64 } error: ^assertion failed

entry guarded_index (xs: []i32) (i: i64) : i32 = assert (i < length xs) (xs[i] + 1)

-- ==
-- entry: guarded_map
-- input { [1, 2] } output { [10, 5] }
-- input { [1, 0] } error: ^assertion failed at .*assert_first\.arr:25:3: Assertion is false: all \(\\x -> x != 0\) xs$

entry guarded_map (xs: []i32) : []i32 =
  assert (all (\x -> x != 0) xs) (map (\x -> 10 / x) xs)

-- ==
-- entry: guarded_after_a_map
-- input { [1, 5] } output { [5, 1] }
-- input { [1, 0] } error: ^assertion failed

entry guarded_after_a_map (xs: []i32) : []i32 =
  let ys = map (\x -> x * 2) xs
  in assert (all (\y -> y != 0) ys) (map (\y -> 10 / y) ys)

-- ==
-- entry: guarded_in_rows
-- input { [[1, 2], [1, 5]] } output { [15, 12] }
-- input { [[1, 2], [1, 0]] } error: ^assertion failed

entry guarded_in_rows (xss: [][]i32) : []i32 =
  map (\xs -> assert (all (\x -> x != 0) xs) (reduce (+) 0 (map (\x -> 10 / x) xs))) xss

-- ==
-- entry: sizes_first
-- input { [1, 2] [3, 4] } output { [11, 16] }
-- input { [1, 2, 3] [1, 2] } error: ^size mismatch: 3 and 2 at .*assert_first\.arr:52:3$

-- The size check of `map2` comes before the maps fused with it, and
-- reports the sizes in the program's order.
entry sizes_first (xs: []i32) (ys: []i32) : []i32 =
  map2 (+) (map (* 2) xs) (map (* 3) ys)
