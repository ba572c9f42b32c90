-- Sums per label of every column of a matrix, one histogram per column
-- over the same rows (k-means' sums per centre). The CPU runs them as one
-- histogram of all the columns' bins, reading each row once
-- (`loopy::hists`); labels outside [0, k) are ignored.
-- ==
-- input { 3i64 [0i64, 2i64, 5i64, 1i64, -1i64, 2i64]
--         [[1.0f32, 2.0f32], [3.0f32, 4.0f32], [5.0f32, 6.0f32],
--          [7.0f32, 8.0f32], [9.0f32, 10.0f32], [11.0f32, 12.0f32]] }
-- output { [[12.0f64, 14.0f64, 9.0f64], [14.0f64, 16.0f64, 10.0f64]] }
-- input { 2i64 empty([0]i64) empty([0][3]f32) }
-- output { [[0.0f64, 0.0f64], [0.0f64, 0.0f64], [0.0f64, 0.0f64]] }
-- input { 0i64 [1i64, 2i64] [[1.0f32], [2.0f32]] }
-- output { empty([1][0]f64) }
-- random input { 5i64 [300]i64 [300][3]f32 }
-- random input { 16i64 [2000]i64 [2000][4]f32 }
entry main [n] [d] (k: i64) (labels: [n]i64) (points: [n][d]f32) : [d][k]f64 =
  let labels = map (\l -> l % (k + 1) - 1) labels
  in tabulate d (\j -> hist (+) 0.0f64 k labels (map (\p -> f64.f32 p[j]) points))

-- Counts and maxima per label of every column of a matrix of integers,
-- with the labels read from the rows themselves.
-- ==
-- entry: maxima
-- input { 2i64 [[1i32, 5i32, 0i32], [0i32, -3i32, 7i32], [1i32, 2i32, 9i32], [2i32, 1i32, 1i32]] }
-- output { [[1i32, 2i32], [5i32, 1i32], [9i32, 1i32]] }
-- random input { 7i64 [500][5]i32 }
entry maxima [n] [d] (k: i64) (rows: [n][d]i32) : [d][k]i32 =
  let labels = map (\r -> i64.i32 r[0] % (k + 1) - 1) rows
  in tabulate d (\j -> hist i32.max i32.lowest k labels (map (\r -> r[j]) rows))
