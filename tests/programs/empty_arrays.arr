-- Empty arrays keep their whole shape: `empty([2][0]bool)` on output,
-- and SOACs on empty inputs.

-- ==
-- entry: shapes
-- input { 2i64 0i64 } output { empty([2][0]bool) empty([0][2]i32) empty([0]f32) }
-- input { 0i64 0i64 } output { empty([0][0]bool) empty([0][0]i32) empty([0]f32) }
-- input { 1i64 1i64 } output { [[false]] [[0]] [0.0f32] }

entry shapes (n: i64) (m: i64) : ([][]bool, [][]i32, []f32) =
  (replicate n (replicate m false), replicate m (replicate n 0), replicate (n * m) 0)

-- ==
-- entry: soacs_on_empty
-- input { empty([0]f64) } output { 0.0 1.0 empty([0]f64) empty([0]f64) 0i64 }

entry soacs_on_empty (xs: []f64) : (f64, f64, []f64, []f64, i64) =
  (reduce (+) 0 xs, reduce (*) 1 xs, map (+ 1) xs, scan (+) 0 xs, length xs)

-- ==
-- entry: empty_rows
-- input { empty([3][0]i32) } output { [0, 0, 0] empty([3][0]i32) 3i64 }

-- Three rows with no columns: the row sums are zero.
entry empty_rows (m: [][]i32) : ([]i32, [][]i32, i64) =
  (map (reduce (+) 0) m, map (map (+ 1)) m, length m)

-- ==
-- entry: empty_3d
-- input { empty([2][0][4]u8) } output { empty([2][0][4]u8) 2i64 }

entry empty_3d (t: [][][]u8) : ([][][]u8, i64) = (t, length t)

-- ==
-- entry: empty_literal_u16
-- input { 0i64 } output { empty([0]u16) empty([0][1]i64) }

entry empty_literal_u16 (n: i64) : ([]u16, [][]i64) =
  (replicate n 7, map (\i -> [i]) (iota n))
