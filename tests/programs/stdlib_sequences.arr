-- Standard library: take, drop, exscan (exclusive, length n, starts with
-- ne), segmented_scan and segmented_reduce (a true flag starts a segment;
-- the first element always starts one; segmented_reduce gives one value
-- per segment).

-- ==
-- entry: take_drop
-- input { 2i64 [1, 2, 3, 4] } output { [1, 2] [3, 4] }
-- input { 0i64 [1, 2, 3, 4] } output { empty([0]i32) [1, 2, 3, 4] }
-- input { 4i64 [1, 2, 3, 4] } output { [1, 2, 3, 4] empty([0]i32) }

entry take_drop (k: i64) (xs: []i32) : ([]i32, []i32) = (take k xs, drop k xs)

-- ==
-- entry: take_drop_2d
-- input { [[1, 2], [3, 4], [5, 6]] } output { [[1, 2]] [[3, 4], [5, 6]] }

entry take_drop_2d (m: [][]i32) : ([][]i32, [][]i32) = (take 1 m, drop 1 m)

-- ==
-- entry: exscan_add
-- input { [1, 2, 3, 4] } output { [0, 1, 3, 6] }
-- input { [5] } output { [0] }
-- input { empty([0]i32) } output { empty([0]i32) }

entry exscan_add (xs: []i32) : []i32 = exscan (+) 0 xs

-- ==
-- entry: exscan_mul
-- input { [2.0f32, 3.0f32, 4.0f32] } output { [1.0f32, 2.0f32, 6.0f32] }

entry exscan_mul (xs: []f32) : []f32 = exscan (*) 1 xs

-- ==
-- entry: segscan
-- input { [true, false, true, false, false] [1, 2, 3, 4, 5] } output { [1, 3, 3, 7, 12] }
-- input { [false, false, true, false] [1, 2, 3, 4] } output { [1, 3, 3, 7] }
-- input { [true, true, true] [1, 2, 3] } output { [1, 2, 3] }
-- input { empty([0]bool) empty([0]i32) } output { empty([0]i32) }

entry segscan (flags: []bool) (xs: []i32) : []i32 = segmented_scan (+) 0 flags xs

-- ==
-- entry: segscan_max
-- input { [true, false, false, true, false] [3.0, 1.0, 4.0, 1.0, 5.0] } output { [3.0, 3.0, 4.0, 1.0, 5.0] }

entry segscan_max (flags: []bool) (xs: []f64) : []f64 = segmented_scan f64.max (-f64.inf) flags xs

-- ==
-- entry: segred
-- input { [true, false, true, false, false] [1, 2, 3, 4, 5] } output { [3, 12] }
-- input { [false, false, true] [1, 2, 3] } output { [3, 3] }
-- input { [true, true, true] [1, 2, 3] } output { [1, 2, 3] }
-- input { [false, false, false] [1, 2, 3] } output { [6] }
-- input { empty([0]bool) empty([0]i32) } output { empty([0]i32) }

entry segred (flags: []bool) (xs: []i32) : []i32 = segmented_reduce (+) 0 flags xs

-- ==
-- entry: segred_mul
-- input { [true, false, true, false] [2i64, 3i64, 4i64, 5i64] } output { [6i64, 20i64] }

entry segred_mul (flags: []bool) (xs: []i64) : []i64 = segmented_reduce (*) 1 flags xs
