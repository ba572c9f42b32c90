-- Standard library reductions (section 10): sum product maximum minimum
-- mean on any numeric element type; argmax/argmin (first index on ties,
-- -1 when empty); all any count with a predicate.

-- ==
-- entry: basics_i32
-- input { [3, -1, 4, -1, 5] } output { 10 60 5 -1 }
-- input { [7] } output { 7 7 7 7 }

entry basics_i32 (xs: []i32) : (i32, i32, i32, i32) =
  (sum xs, product xs, maximum xs, minimum xs)

-- ==
-- entry: basics_f64
-- input { [1.5, -2.0, 4.5] } output { 4.0 -13.5 4.5 -2.0 1.3333333333 }

entry basics_f64 (xs: []f64) : (f64, f64, f64, f64, f64) =
  (sum xs, product xs, maximum xs, minimum xs, mean xs)

-- ==
-- entry: basics_u8
-- input { [200u8, 100u8, 3u8] } output { 47u8 96u8 200u8 3u8 }

-- On u8 the sum and product wrap; maximum/minimum compare unsigned.
entry basics_u8 (xs: []u8) : (u8, u8, u8, u8) =
  (sum xs, product xs, maximum xs, minimum xs)

-- ==
-- entry: basics_f32_i64
-- input { [0.5f32, 0.25f32] [4i64, 2i64, 6i64] } output { 0.75f32 0.375f32 12i64 48i64 4i64 }

entry basics_f32_i64 (xs: []f32) (ys: []i64) : (f32, f32, i64, i64, i64) =
  (sum xs, mean xs, sum ys, product ys, mean ys)

-- ==
-- entry: empty_sums
-- input { empty([0]i32) empty([0]f32) } output { 0 1 0.0f32 1.0f32 }

entry empty_sums (xs: []i32) (ys: []f32) : (i32, i32, f32, f32) =
  (sum xs, product xs, sum ys, product ys)

-- ==
-- entry: arg
-- input { [1, 5, 2, 5, 0, 0] } output { 1i64 4i64 }
-- input { [3] } output { 0i64 0i64 }
-- input { empty([0]i32) } output { -1i64 -1i64 }
-- input { [2, 2, 2] } output { 0i64 0i64 }

-- argmax / argmin: the first index on ties, -1 on an empty array.
entry arg (xs: []i32) : (i64, i64) = (argmax xs, argmin xs)

-- ==
-- entry: arg_f32
-- input { [-1.0f32, -0.5f32, -3.0f32, -0.5f32] } output { 1i64 2i64 }

entry arg_f32 (xs: []f32) : (i64, i64) = (argmax xs, argmin xs)

-- ==
-- entry: preds
-- input { [2, 4, 6] } output { true true 3i64 0i64 }
-- input { [2, 3, 6] } output { false true 2i64 1i64 }
-- input { [1, 3] } output { false false 0i64 2i64 }
-- input { empty([0]i32) } output { true false 0i64 0i64 }

entry preds (xs: []i32) : (bool, bool, i64, i64) =
  (all (\x -> x % 2 == 0) xs, any (\x -> x % 2 == 0) xs, count (\x -> x % 2 == 0) xs, count (\x -> x % 2 != 0) xs)

-- ==
-- entry: rows
-- input { [[1, 2], [3, 4], [5, 0]] } output { [3, 7, 5] [2, 4, 5] [1i64, 1i64, 0i64] }

-- Library functions inside a map (nested).
entry rows (m: [][]i32) : ([]i32, []i32, []i64) =
  (map sum m, map maximum m, map argmax m)
