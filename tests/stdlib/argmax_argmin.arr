-- argmax and argmin: the first index on ties, -1 for an empty array.
-- ==
-- entry: ints
-- input { [3, 9, 1, 9, 1] } output { 1i64 2i64 }
-- input { [5] } output { 0i64 0i64 }
-- input { [4, 4, 4] } output { 0i64 0i64 }
-- input { empty([0]i32) } output { -1i64 -1i64 }

-- ==
-- entry: floats
-- input { [2.0f32, -1.0f32, 2.0f32, -1.0f32] } output { 0i64 1i64 }
-- input { [-3.5f32, 7.25f32, 0.0f32] } output { 1i64 0i64 }

entry ints (xs: []i32) = (argmax xs, argmin xs)

entry floats (xs: []f32) = (argmax xs, argmin xs)
