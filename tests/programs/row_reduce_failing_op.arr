-- Row reductions and row scans whose operator can fail (a checked
-- division, an assertion): on a GPU the row's warp or block folds and
-- combines it (docs/gpu.md, "Row reductions"); before, a thread ran each
-- row. The operator is never applied to an empty row, and the first
-- failing check in row-major order is reported: a row's body before its
-- operator, an earlier row's operator before a later row's body.

-- ==
-- entry: divided
-- input { 0i64 empty([0][3]i64) } output { empty([0]i64) }
-- input { 0i64 empty([3][0]i64) } output { [0i64, 0i64, 0i64] }
-- input { 0i64 [[1i64], [2i64]] } error: ^division by zero at .*row_reduce_failing_op\.arr:20:
-- input { 1i64 [[1i64, 2i64, 3i64], [4i64, 5i64, 6i64]] } output { [6i64, 15i64] }
-- random input { 1i64 [50][40]i64 } auto output
-- random input { 1i64 [3][2000]i64 } auto output
-- random input { 0i64 [3][2000]i64 } error: ^division by zero at .*row_reduce_failing_op\.arr:20:

-- Every application of the operator divides by z.
entry divided (z: i64) (xss: [][]i64) : []i64 =
  map (\xs -> reduce (\a b -> a + b + 0 / z) 0 xs) xss

-- ==
-- entry: capped
-- input { 5i64 0i64 5i64 -1i64 -1i64 -1i64 } output { empty([0]i64) }
-- input { -5i64 3i64 0i64 -1i64 -1i64 -1i64 } output { [1i64, 1i64, 1i64] }
-- input { 9i64 3i64 5i64 -1i64 -1i64 -1i64 } output { [6i64, 6i64, 6i64] }
-- input { 6i64 3i64 5i64 -1i64 -1i64 -1i64 } error: ^assertion failed at .*row_reduce_failing_op\.arr:49:
-- input { 6i64 3i64 5i64 2i64 3i64 -1i64 } error: ^index 13 out of bounds for array of length 10 at .*row_reduce_failing_op\.arr:50:
-- input { 6i64 3i64 5i64 -1i64 -1i64 1i64 } error: ^index 10 out of bounds for array of length 10 at .*row_reduce_failing_op\.arr:51:
-- input { 41i64 3i64 40i64 -1i64 -1i64 -1i64 } error: ^assertion failed at .*row_reduce_failing_op\.arr:49:
-- input { 41i64 3i64 40i64 1i64 37i64 -1i64 } error: ^index 47 out of bounds for array of length 10 at .*row_reduce_failing_op\.arr:50:
-- input { 41i64 3i64 40i64 2i64 5i64 1i64 } error: ^index 10 out of bounds for array of length 10 at .*row_reduce_failing_op\.arr:51:
-- input { 79i64 40i64 40i64 -1i64 -1i64 -1i64 } auto output
-- input { 5002i64 3i64 5000i64 -1i64 -1i64 -1i64 } auto output
-- input { 5001i64 3i64 5000i64 -1i64 -1i64 -1i64 } error: ^assertion failed at .*row_reduce_failing_op\.arr:49:
-- input { 5001i64 3i64 5000i64 2i64 4000i64 -1i64 } error: ^index 4010 out of bounds for array of length 10 at .*row_reduce_failing_op\.arr:50:
-- input { 5001i64 3i64 5000i64 1i64 4999i64 -1i64 } error: ^index 5009 out of bounds for array of length 10 at .*row_reduce_failing_op\.arr:50:
-- input { 5001i64 3i64 5000i64 1i64 4999i64 0i64 } error: ^index 10 out of bounds for array of length 10 at .*row_reduce_failing_op\.arr:51:
-- input { 5002i64 3i64 5000i64 2i64 7i64 1i64 } error: ^index 10 out of bounds for array of length 10 at .*row_reduce_failing_op\.arr:51:
-- input { 5002i64 3i64 5000i64 -1i64 -1i64 2i64 } error: ^index 10 out of bounds for array of length 10 at .*row_reduce_failing_op\.arr:51:
-- input { 4998i64 3i64 5000i64 0i64 4000i64 -1i64 } error: ^index 4010 out of bounds for array of length 10 at .*row_reduce_failing_op\.arr:50:

-- Row r sums n ones under the cap lim - r (so the later rows' operators
-- fail first, and only in the last application of a row in sequential
-- order); row br reads out of bounds in iteration bc, row k after the
-- reduction.
entry capped (lim: i64) (m: i64) (n: i64) (br: i64) (bc: i64) (k: i64) : []i64 =
  let ones = replicate 10 1i64
  in map (\r -> let s = reduce (\a b -> assert (a + b <= lim - r) (a + b)) 0
                                (map (\j -> if r == br && j == bc then ones[j + 10] else ones[j % 10]) (iota n))
                in s + ones[if r == k then 10 else 0]) (iota m)

-- ==
-- entry: composed
-- input { 1i64 empty([2][0]i32) empty([2][0]i32) } output { [1i32, 1i32] [0i32, 0i32] }
-- input { 0i64 empty([2][0]i32) empty([2][0]i32) } output { [1i32, 1i32] [0i32, 0i32] }
-- input { 1i64 [[2i32, 3i32, 1i32]] [[1i32, 0i32, 5i32]] } output { [6i32] [8i32] }
-- random input { 1i64 [40][70]i32 [40][70]i32 } auto output
-- random input { 1i64 [3][3000]i32 [3][3000]i32 } auto output
-- random input { 0i64 [3][3000]i32 [3][3000]i32 } error: ^division by zero at .*row_reduce_failing_op\.arr:65:

-- Affine maps composed along each row, first one first: not commutative;
-- every application divides by z.
entry composed (z: i64) (ass: [][]i32) (bss: [][]i32) : ([]i32, []i32) =
  unzip (map2 (\as bs -> reduce (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2 + i32.i64 (0 / z))) (1i32, 0i32)
                                (zip as bs)) ass bss)

-- ==
-- entry: scan_divided
-- input { 0i64 empty([0][3]i64) } output { empty([0][3]i64) }
-- input { 0i64 empty([3][0]i64) } output { empty([3][0]i64) }
-- input { 0i64 [[1i64], [2i64]] } error: ^division by zero at .*row_reduce_failing_op\.arr:80:
-- input { 0i64 [[1i64, 2i64], [2i64, 3i64]] } error: ^division by zero at .*row_reduce_failing_op\.arr:80:
-- random input { 1i64 [50][40]i64 } auto output
-- random input { 1i64 [2][3000]i64 } auto output
-- random input { 0i64 [2][3000]i64 } error: ^division by zero at .*row_reduce_failing_op\.arr:80:

-- Prefix sums per row whose every application divides by z.
entry scan_divided (z: i64) (xss: [][]i64) : [][]i64 =
  map (\xs -> scan (\a b -> a + b + 0 / z) 0 xs) xss

-- ==
-- entry: scan_capped
-- input { 5i64 0i64 5i64 -1i64 -1i64 -1i64 } output { empty([0]i64) }
-- input { -5i64 3i64 0i64 -1i64 -1i64 -1i64 } output { [0i64, 0i64, 0i64] }
-- input { 9i64 3i64 5i64 -1i64 -1i64 -1i64 } output { [55i64, 55i64, 55i64] }
-- input { 6i64 3i64 5i64 -1i64 -1i64 -1i64 } error: ^assertion failed at .*row_reduce_failing_op\.arr:104:
-- input { 6i64 3i64 5i64 2i64 3i64 -1i64 } error: ^index 13 out of bounds for array of length 10 at .*row_reduce_failing_op\.arr:105:
-- input { 6i64 3i64 5i64 -1i64 -1i64 1i64 } error: ^index 10 out of bounds for array of length 10 at .*row_reduce_failing_op\.arr:107:
-- input { 41i64 3i64 40i64 -1i64 -1i64 -1i64 } error: ^assertion failed at .*row_reduce_failing_op\.arr:104:
-- input { 41i64 3i64 40i64 1i64 37i64 -1i64 } error: ^index 47 out of bounds for array of length 10 at .*row_reduce_failing_op\.arr:105:
-- input { 79i64 40i64 40i64 -1i64 -1i64 -1i64 } auto output
-- input { 3002i64 3i64 3000i64 -1i64 -1i64 -1i64 } auto output
-- input { 3001i64 3i64 3000i64 -1i64 -1i64 -1i64 } error: ^assertion failed at .*row_reduce_failing_op\.arr:104:
-- input { 3001i64 3i64 3000i64 2i64 2500i64 -1i64 } error: ^index 2510 out of bounds for array of length 10 at .*row_reduce_failing_op\.arr:105:
-- input { 3001i64 3i64 3000i64 1i64 2999i64 0i64 } error: ^index 10 out of bounds for array of length 10 at .*row_reduce_failing_op\.arr:107:
-- input { 3002i64 3i64 3000i64 -1i64 -1i64 2i64 } error: ^index 10 out of bounds for array of length 10 at .*row_reduce_failing_op\.arr:107:

-- Row r's prefix counts of n ones under the cap lim - r, then the sum of
-- their squares modulo 97; row br reads out of bounds in iteration bc,
-- row k after them.
entry scan_capped (lim: i64) (m: i64) (n: i64) (br: i64) (bc: i64) (k: i64) : []i64 =
  let ones = replicate 10 1i64
  in map (\r -> let ps = scan (\a b -> assert (a + b <= lim - r) (a + b)) 0
                              (map (\j -> if r == br && j == bc then ones[j + 10] else ones[j % 10]) (iota n))
                let q = reduce (+) 0 (map (\p -> p * p % 97) ps)
                in q + ones[if r == k then 10 else 0] - 1) (iota m)

-- ==
-- entry: scan_neutral
-- input { 2i64 40i64 } output { [[1i64, 6i64, 11i64, 16i64, 21i64, 26i64, 31i64, 36i64, 41i64, 46i64, 51i64, 56i64, 61i64, 66i64, 71i64, 76i64, 81i64, 86i64, 91i64, 96i64, 101i64, 106i64, 111i64, 116i64, 121i64, 126i64, 131i64, 136i64, 141i64, 146i64, 151i64, 156i64, 161i64, 166i64, 171i64, 176i64, 181i64, 186i64, 191i64, 196i64], [1i64, 6i64, 11i64, 16i64, 21i64, 26i64, 31i64, 36i64, 41i64, 46i64, 51i64, 56i64, 61i64, 66i64, 71i64, 76i64, 81i64, 86i64, 91i64, 96i64, 101i64, 106i64, 111i64, 116i64, 121i64, 126i64, 131i64, 136i64, 141i64, 146i64, 151i64, 156i64, 161i64, 166i64, 171i64, 176i64, 181i64, 186i64, 191i64, 196i64]] }
-- input { 0i64 40i64 } output { empty([0][40]i64) }

-- The operator fails only on the neutral element and 6 (in no
-- application of the sequential order: the row's running sums are 1,
-- 6, 11, ...); lane 1's carry-in once combined the neutral element with
-- lane 0's totals (1 + 5 = 6) and failed.
entry scan_neutral (m: i64) (n: i64) : [][]i64 =
  let xss = map (\_ -> map (\j -> if j == 0 then 1 else 5) (iota n)) (iota m)
  in map (\xs -> scan (\a b -> assert (a != 0 || b != 6) (a + b)) 0 xs) xss
