-- sum, product, maximum, minimum and mean of the standard library, on
-- several element types, including empty arrays.
-- ==
-- entry: sums
-- input { [1, 2, 3, 4] [1.5, 2.5] } output { 10 24 4.0 3.75 }
-- input { empty([0]i32) empty([0]f64) } output { 0 1 0.0 1.0 }

-- ==
-- entry: extremes
-- input { [3, -7, 9, 2] [2.5f32, -1.0f32] } output { 9 -7 2.5f32 -1.0f32 }
-- input { empty([0]i32) empty([0]f32) } output { -2147483648 2147483647 -f32.inf f32.inf }

-- ==
-- entry: bytes
-- input { [200u8, 7u8, 255u8] } output { 255u8 7u8 206u8 }
-- input { empty([0]u8) } output { 0u8 255u8 0u8 }

-- ==
-- entry: means
-- input { [1.0, 2.0, 4.0, 5.0] [7i64, 8i64, 10i64] } output { 3.0 8i64 }
-- input { [-1.5] [-7i64, 0i64] } output { -1.5 -4i64 }

entry sums (xs: []i32) (ys: []f64) = (sum xs, product xs, sum ys, product ys)

entry extremes (xs: []i32) (ys: []f32) = (maximum xs, minimum xs, maximum ys, minimum ys)

entry bytes (xs: []u8) = (maximum xs, minimum xs, sum xs)

entry means (xs: []f64) (ys: []i64) = (mean xs, mean ys)
