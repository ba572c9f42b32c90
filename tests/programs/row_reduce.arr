-- Maps whose iterations reduce a row (the segmented reduction of a
-- regular nesting). On a GPU each row is reduced by a warp, or by a block
-- when rows are long and few (docs/gpu.md, "Row reductions"): the shapes
-- below take both forms, rows shorter than a warp and empty rows, under
-- shrunk launches (ARRC_GPU_SHRINK=1) more rows than warps and blocks.

-- ==
-- entry: sums
-- input { [[1i64, 2i64, 3i64], [4i64, 5i64, 6i64]] } output { [6i64, 15i64] }
-- input { empty([0][5]i64) } output { empty([0]i64) }
-- input { empty([3][0]i64) } output { [0i64, 0i64, 0i64] }
-- random input { [40][7]i64 } auto output
-- random input { [9][100]i64 } auto output
-- random input { [3][2000]i64 } auto output
-- random input { [1][5000]i64 } auto output
entry sums (xss: [][]i64) : []i64 = map (\row -> reduce (+) 0 row) xss

-- ==
-- entry: norms
-- random input { [30][45]f64 } auto output
-- random input { [4][3000]f64 } auto output

-- A producer fused into the row's reduction, and a statement after it.
entry norms (xss: [][]f64) : []f64 =
  map (\row -> f64.sqrt (reduce (+) 0 (map (\x -> x * x) row))) xss

-- ==
-- entry: compose_rows
-- input { [[2i32, 3i32, 1i32]] [[1i32, 0i32, 5i32]] } output { [6i32] [8i32] }
-- random input { [50][33]i32 [50][33]i32 } auto output
-- random input { [70][5]i32 [70][5]i32 } auto output
-- random input { [5][1500]i32 [5][1500]i32 } auto output
-- random input { [1][3000]i32 [1][3000]i32 } auto output
-- random input { [2][2600]i32 [2][2600]i32 } auto output

-- Affine maps x -> a * x + b composed along each row, first one first:
-- associative, not commutative.
entry compose_rows (ass: [][]i32) (bss: [][]i32) : ([]i32, []i32) =
  unzip (map2 (\as bs -> reduce (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1i32, 0i32) (zip as bs)) ass bss)

-- ==
-- entry: fails
-- input { 40i64 7i64 -1i64 -1i64 1000000i64 } auto output
-- input { 40i64 7i64 -1i64 -1i64 100i64 } error: ^index 100 out of bounds for array of length 10 at .*row_reduce\.arr:67:
-- input { 40i64 7i64 30i64 -1i64 100i64 } error: ^index 100 out of bounds for array of length 10 at .*row_reduce\.arr:67:
-- input { 40i64 7i64 9i64 -1i64 100i64 } error: ^division by zero at .*row_reduce\.arr:66:
-- input { 40i64 7i64 -1i64 14i64 100i64 } error: ^index 100 out of bounds for array of length 10 at .*row_reduce\.arr:67:
-- input { 40i64 7i64 -1i64 12i64 100i64 } error: ^division by zero at .*row_reduce\.arr:68:
-- input { 3i64 2000i64 -1i64 -1i64 3500i64 } error: ^index 3500 out of bounds for array of length 10 at .*row_reduce\.arr:67:
-- input { 3i64 2000i64 -1i64 0i64 3500i64 } error: ^division by zero at .*row_reduce\.arr:68:
-- input { 3i64 2000i64 1i64 -1i64 3500i64 } error: ^division by zero at .*row_reduce\.arr:66:
-- input { 2i64 3000i64 -1i64 -1i64 100000i64 } auto output
-- input { 2i64 3000i64 -1i64 -1i64 2500i64 } error: ^index 2500 out of bounds for array of length 10 at .*row_reduce\.arr:67:
-- input { 2i64 3000i64 -1i64 0i64 2500i64 } error: ^index 2500 out of bounds for array of length 10 at .*row_reduce\.arr:67:
-- input { 2i64 3000i64 -1i64 0i64 4000i64 } error: ^division by zero at .*row_reduce\.arr:68:
-- input { 2i64 3000i64 1i64 -1i64 4000i64 } error: ^division by zero at .*row_reduce\.arr:66:
-- input { 1i64 5000i64 -1i64 0i64 4900i64 } error: ^index 4900 out of bounds for array of length 10 at .*row_reduce\.arr:67:

-- Checks before the row's reduction (row zp divides by zero), in it (the
-- first element at or past k reads out of bounds, in several lanes and
-- rows) and after it (row zq divides by zero): the first in sequential
-- order is reported.
entry fails (n: i64) (m: i64) (zp: i64) (zq: i64) (k: i64) : []i64 =
  let ten = iota 10
  in map (\i ->
             let d = 1000 / (i - zp)
             let s = reduce (+) 0 (map (\j -> let v = i * m + j in if v >= k then ten[v] else v % 3 + d % 2) (iota m))
             in s / (if i == zq then 0 else 1)) (iota n)

-- ==
-- entry: checked_op
-- input { 100i64 [[1i64, 2i64], [3i64, 4i64]] } output { [3i64, 7i64] }
-- random input { 1000000i64 [20][50]i64 } auto output
-- input { 5i64 [[1i64, 2i64], [3i64, 4i64]] } error: ^assertion failed at .*row_reduce\.arr:79:

-- An operator that can fail takes the row's group too (its combining
-- steps voted on: row_reduce_failing_op.arr).
entry checked_op (t: i64) (xss: [][]i64) : []i64 =
  map (\row -> reduce (\a b -> assert (a + b < t) (a + b)) 0 (map (\x -> x % 1000) row)) xss
