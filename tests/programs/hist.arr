-- hist op ne m is vs: m bins starting at ne, each combined with the values
-- whose index points at it; indices out of range are ignored.

-- ==
-- entry: counts
-- input { 4i64 [0i64, 1i64, 1i64, 3i64, 1i64] } output { [1, 3, 0, 1] }
-- input { 3i64 [-1i64, 3i64, 2i64, 7i64] } output { [0, 0, 1] }
-- input { 2i64 empty([0]i64) } output { [0, 0] }
-- input { 0i64 [0i64, 1i64] } output { empty([0]i32) }

entry counts (m: i64) (is: []i64) : []i32 = hist (+) 0 m is (map (\_ -> 1) is)

-- ==
-- entry: maxes
-- input { 3i64 [0i64, 2i64, 0i64, 2i64] [5.0f32, -1.0f32, 7.0f32, -3.0f32] }
-- output { [7.0f32, -f32.inf, -1.0f32] }

-- Bins that receive nothing keep the neutral element.
entry maxes (m: i64) (is: []i64) (vs: []f32) : []f32 = hist f32.max (-f32.inf) m is vs

-- ==
-- entry: sizes
-- input { 2i64 [0i64, 1i64] [1] } error: size mismatch

entry sizes (m: i64) (is: []i64) (vs: []i32) : []i32 = hist (+) 0 m is vs

-- ==
-- entry: mult
-- input { [2, 3, 4, 5] } output { [8, 15] }

-- Product histogram: even positions into bin 0, odd ones into bin 1.
entry mult (xs: []i32) : []i32 =
  hist (*) 1 2 (map (\i -> i % 2) (iota (length xs))) xs

-- ==
-- entry: bucket_floats
-- input { [0.1, 0.5, 0.55, 0.9, 0.95, 0.99] } output { [1i64, 2i64, 3i64] }

-- Bucketing floats into 3 bins of [0, 1).
entry bucket_floats (xs: []f64) : []i64 =
  hist (+) 0 3 (map (\x -> i64.f64 (x * 3)) xs) (map (\_ -> 1) xs)
