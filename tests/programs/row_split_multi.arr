-- Rows with several reductions one after another, long and few enough to
-- be split across blocks on a GPU: one launch per reduction, each row's
-- later reductions reading the earlier ones' results from the launch
-- before (docs/gpu.md, "Split rows"). Under shrunk launches
-- (ARRC_GPU_SHRINK=1: 3 blocks) one row of 5,000 or two of 3,000 split;
-- three rows of 2,000 take a block each and short rows a warp each.

-- ==
-- entry: mean_spread
-- input { [[1i64, 2i64, 3i64, 6i64], [5i64, 5i64, 5i64, 5i64]] } output { [3i64, 5i64] [14i64, 0i64] }
-- input { empty([0][5000]i64) } output { empty([0]i64) empty([0]i64) }
-- input { empty([2][0]i64) } output { [0i64, 0i64] [0i64, 0i64] }
-- random input { [40][7]i64 } auto output
-- random input { [3][2000]i64 } auto output
-- random input { [2][3000]i64 } auto output
-- random input { [1][5000]i64 } auto output

-- A row's mean, then the sum of squared distances from it.
entry mean_spread (xss: [][]i64) : ([]i64, []i64) =
  unzip (map (\row ->
                let n = length row
                let m = reduce (+) 0 row / i64.max 1 n
                in (m, reduce (+) 0 (map (\x -> (x - m) * (x - m)) row))) xss)

-- ==
-- entry: compose_from_min
-- input { [[2i32, 3i32, 1i32], [1i32, 1i32, 1i32]] } output { [-8i32, 4i32] [0i32, 0i32] }
-- random input { [50][33]i32 } auto output
-- random input { [3][2000]i32 } auto output
-- random input { [2][3000]i32 } auto output
-- random input { [1][5000]i32 } auto output

-- The row's minimum, then affine maps x -> a * x + b built from it and
-- composed along the row, first one first (associative, not
-- commutative), then a sum from that result: three launches when split.
entry compose_from_min (xss: [][]i32) : ([]i32, []i32) =
  unzip (map (\row ->
                let lo = reduce i32.min i32.highest row
                let (a, b) = reduce (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1i32, 0i32)
                                    (map (\x -> (x - lo - 1, x - lo)) row)
                let c = reduce (+) 0 (map (\x -> x * a - b) row)
                in (a * b - c + i32.i64 (length row) % 2, i32.min 0 (lo - a))) xss)

-- ==
-- entry: fails
-- input { 2i64 3000i64 -1i64 -1i64 100000i64 -1i64 } auto output
-- input { 1i64 5000i64 -1i64 -1i64 100000i64 -1i64 } auto output
-- input { 40i64 7i64 -1i64 -1i64 100i64 -1i64 } error: ^index 100 out of bounds for array of length 10 at .*row_split_multi\.arr:70:
-- input { 1i64 5000i64 -1i64 -1i64 4900i64 -1i64 } error: ^index 4900 out of bounds for array of length 10 at .*row_split_multi\.arr:70:
-- input { 1i64 5000i64 0i64 -1i64 100000i64 -1i64 } error: ^division by zero at .*row_split_multi\.arr:71:
-- input { 1i64 5000i64 -1i64 0i64 100000i64 -1i64 } error: ^division by zero at .*row_split_multi\.arr:73:
-- input { 1i64 5000i64 -1i64 -1i64 100000i64 0i64 } error: ^index 10 out of bounds for array of length 10 at .*row_split_multi\.arr:74:
-- input { 2i64 3000i64 -1i64 0i64 5500i64 -1i64 } error: ^division by zero at .*row_split_multi\.arr:73:
-- input { 2i64 3000i64 0i64 -1i64 5500i64 -1i64 } error: ^division by zero at .*row_split_multi\.arr:71:
-- input { 2i64 3000i64 1i64 -1i64 5500i64 -1i64 } error: ^index 5500 out of bounds for array of length 10 at .*row_split_multi\.arr:70:
-- input { 2i64 3000i64 -1i64 1i64 100000i64 0i64 } error: ^index 10 out of bounds for array of length 10 at .*row_split_multi\.arr:74:
-- input { 2i64 3000i64 -1i64 1i64 100000i64 1i64 } error: ^division by zero at .*row_split_multi\.arr:73:
-- input { 2i64 3000i64 1i64 0i64 100000i64 -1i64 } error: ^division by zero at .*row_split_multi\.arr:73:
-- input { 3i64 2000i64 2i64 -1i64 3500i64 -1i64 } error: ^index 3500 out of bounds for array of length 10 at .*row_split_multi\.arr:70:

-- Checks in the first reduction (an element at or past k reads out of
-- bounds), between the reductions (row zp divides by zero), in the second
-- one's later half (row zq divides by zero) and after them (row za reads
-- out of bounds): the first in sequential order is reported, although a
-- split row's later reductions run in later launches than an earlier
-- row's first one.
entry fails (n: i64) (m: i64) (zp: i64) (zq: i64) (k: i64) (za: i64) : []i64 =
  let ten = iota 10
  in map (\i ->
             let s = reduce (+) 0 (map (\j -> let v = i * m + j in if v >= k then ten[v] else v % 3) (iota m))
             let d = 1000 / (i - zp) + s
             let t = reduce (+) 0 (map (\j ->
                         j * d / (if i == zq && j >= m / 2 then 0 else 1)) (iota m))
             in s + t + ten[if i == za then 10 else 0]) (iota n)

-- ==
-- entry: normalise
-- input { 2i64 4i64 -1i64 -1i64 -1i64 } auto output
-- input { 0i64 5000i64 -1i64 -1i64 -1i64 } output { empty([0][5000]i64) }
-- input { 3i64 0i64 -1i64 -1i64 -1i64 } output { [empty([0]i64), empty([0]i64), empty([0]i64)] }
-- input { 40i64 7i64 100000i64 -1i64 -1i64 } auto output
-- input { 2i64 3000i64 100000i64 -1i64 -1i64 } auto output
-- input { 1i64 5000i64 100000i64 -1i64 -1i64 } auto output
-- input { 40i64 7i64 100000i64 20i64 417i64 } error: ^division by zero at .*row_split_multi\.arr:104:
-- input { 1i64 5000i64 100000i64 0i64 500i64 } error: ^division by zero at .*row_split_multi\.arr:104:
-- input { 1i64 5000i64 4000i64 0i64 500i64 } error: ^index 4000 out of bounds for array of length 10 at .*row_split_multi\.arr:100:
-- input { 1i64 5000i64 400i64 0i64 500i64 } error: ^index 400 out of bounds for array of length 10 at .*row_split_multi\.arr:100:
-- input { 2i64 3000i64 3100i64 0i64 999i64 } error: ^division by zero at .*row_split_multi\.arr:104:
-- input { 2i64 3000i64 3100i64 1i64 999i64 } error: ^index 3100 out of bounds for array of length 10 at .*row_split_multi\.arr:100:
-- input { 2i64 3000i64 100000i64 1i64 999i64 } error: ^division by zero at .*row_split_multi\.arr:104:

-- Two reductions (a sum with a check past k, then a non-commutative
-- composition from it), then a map writing the output's row from both:
-- three launches when split, the map's chunks written by their blocks.
-- Row zr divides by zero where its element is z: in the map's launch,
-- after every row's first reduction ran in the first launch.
entry normalise (n: i64) (m: i64) (k: i64) (zr: i64) (z: i64) : [][]i64 =
  let ten = iota 10
  in map (\i ->
            let s = reduce (+) 0 (map (\j -> let v = i * m + j in if v >= k then ten[v] else v * 7919 % 1000) (iota m))
            let (a, b) = reduce (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1, 0)
                                (map (\j -> ((i * m + j) % 3 - 1, j - s % 7)) (iota m))
            in map (\j -> let x = (i * m + j) * 7919 % 1000
                          in (x * a + b) / (if i == zr then x - z else 1)) (iota m)) (iota n)
