-- exscan, segmented_scan and segmented_reduce.
-- ==
-- entry: exscans
-- input { [1, 2, 3, 4] } output { [0, 1, 3, 6] [1, 2, 6, 24] }
-- input { empty([0]i32) } output { empty([0]i32) empty([0]i32) }

-- ==
-- entry: segscan
-- input { [true, false, false, true, false] [1, 2, 3, 4, 5] } output { [1, 3, 6, 4, 9] }
-- input { [false, false, true, false] [1, 2, 3, 4] } output { [1, 3, 3, 7] }
-- input { [true, true, true] [5, 6, 7] } output { [5, 6, 7] }
-- input { empty([0]bool) empty([0]i32) } output { empty([0]i32) }

-- ==
-- entry: segreduce
-- input { [true, false, false, true, false] [1, 2, 3, 4, 5] } output { [6, 9] }
-- input { [false, false, true, false] [1, 2, 3, 4] } output { [3, 7] }
-- input { [true, true, true] [5, 6, 7] } output { [5, 6, 7] }
-- input { empty([0]bool) empty([0]i32) } output { empty([0]i32) }

-- ==
-- entry: segmax
-- input { [true, false, true, false, false] [1.0f32, -2.0f32, 3.0f32, 8.0f32, 5.0f32] } output { [1.0f32, 8.0f32] }

entry exscans (xs: []i32) = (exscan (+) 0 xs, exscan (*) 1 (map (+1) xs))

entry segscan (flags: []bool) (xs: []i32) = segmented_scan (+) 0 flags xs

entry segreduce (flags: []bool) (xs: []i32) = segmented_reduce (+) 0 flags xs

entry segmax (flags: []bool) (xs: []f32) = segmented_reduce f32.max f32.lowest flags xs
