-- Row scans, long and few enough to be split across blocks on a GPU: each
-- row's scan takes two launches, the chunks' totals, then each chunk
-- scanned again from the totals of the chunks before it (docs/gpu.md,
-- "Split rows"). Under shrunk launches (ARRC_GPU_SHRINK=1: 3 blocks) one
-- row of 5,000 or two of 3,000 split; three rows of 2,000 take a block
-- each and short rows a warp each.

-- ==
-- entry: prefix_sums
-- input { [[1i64, 2i64, 3i64], [4i64, 0i64, 6i64]] } output { [[1i64, 3i64, 6i64], [4i64, 4i64, 10i64]] }
-- input { empty([0][5000]i64) } output { empty([0][5000]i64) }
-- input { empty([2][0]i64) } output { [empty([0]i64), empty([0]i64)] }
-- random input { [40][7]i64 } auto output
-- random input { [3][2000]i64 } auto output
-- random input { [2][3000]i64 } auto output
-- random input { [1][5000]i64 } auto output
-- random input { [1][2049]i64 } auto output

entry prefix_sums (xss: [][]i64) : [][]i64 =
  map (\row -> scan (+) 0 row) xss

-- ==
-- entry: composed
-- input { [[2i32, 3i32, 1i32], [1i32, 0i32, 5i32]] } auto output
-- random input { [50][33]i32 } auto output
-- random input { [3][2000]i32 } auto output
-- random input { [2][3000]i32 } auto output
-- random input { [1][5000]i32 } auto output

-- Affine maps composed along the row, first one first (associative, not
-- commutative): the chunks' totals combine in chunk order.
entry composed (xss: [][]i32) : [][]i32 =
  map (\row -> map (\(a, b) -> a * 3 + b)
                   (scan (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1i32, 0i32)
                         (map (\x -> (x % 3 - 1, x)) row))) xss

-- ==
-- entry: from_max
-- input { [[2i64, 7i64, 1i64], [1i64, 1i64, 1i64]] } output { [[5i64, 5i64, 11i64], [0i64, 0i64, 0i64]] }
-- random input { [40][7]i64 } auto output
-- random input { [3][2000]i64 } auto output
-- random input { [2][3000]i64 } auto output
-- random input { [1][5000]i64 } auto output

-- The row's maximum, then the prefix sums of the distances from it: a
-- reduction, then the scan's two stages (three launches when split).
entry from_max (xss: [][]i64) : [][]i64 =
  map (\row -> let m = reduce i64.max i64.lowest row
               in scan (+) 0 (map (\x -> m - x) row)) xss

-- ==
-- entry: fails
-- input { 2i64 3000i64 -1i64 100000i64 -1i64 } auto output
-- input { 1i64 5000i64 -1i64 100000i64 -1i64 } auto output
-- input { 40i64 7i64 -1i64 100i64 -1i64 } error: ^index 100 out of bounds for array of length 10 at .*row_scan_split\.arr:77:
-- input { 1i64 5000i64 -1i64 4900i64 -1i64 } error: ^index 4900 out of bounds for array of length 10 at .*row_scan_split\.arr:77:
-- input { 1i64 5000i64 -1i64 1000i64 -1i64 } error: ^index 1000 out of bounds for array of length 10 at .*row_scan_split\.arr:77:
-- input { 1i64 5000i64 0i64 100000i64 -1i64 } error: ^division by zero at .*row_scan_split\.arr:75:
-- input { 1i64 5000i64 -1i64 100000i64 0i64 } error: ^index 10 out of bounds for array of length 10 at .*row_scan_split\.arr:78:
-- input { 2i64 3000i64 -1i64 5500i64 -1i64 } error: ^index 5500 out of bounds for array of length 10 at .*row_scan_split\.arr:77:
-- input { 2i64 3000i64 -1i64 2900i64 -1i64 } error: ^index 2900 out of bounds for array of length 10 at .*row_scan_split\.arr:77:
-- input { 2i64 3000i64 1i64 5500i64 -1i64 } error: ^division by zero at .*row_scan_split\.arr:75:
-- input { 2i64 3000i64 -1i64 5500i64 0i64 } error: ^index 10 out of bounds for array of length 10 at .*row_scan_split\.arr:78:
-- input { 2i64 3000i64 -1i64 100000i64 1i64 } error: ^index 10 out of bounds for array of length 10 at .*row_scan_split\.arr:78:
-- input { 3i64 2000i64 -1i64 3500i64 -1i64 } error: ^index 3500 out of bounds for array of length 10 at .*row_scan_split\.arr:77:

-- Checks before the scan (row zp divides by zero), in it (an element at
-- or past k, counted over the whole matrix, reads out of bounds: a late
-- chunk of an early row fails before an early chunk of a later row) and
-- after it (row za reads out of bounds): the first in sequential order
-- is reported, although a split row's scan runs in two launches.
entry fails (n: i64) (m: i64) (zp: i64) (k: i64) (za: i64) : ([][]i64, []i64) =
  let ten = iota 10
  in unzip (map (\i ->
                   let d = 1000 / (i - zp)
                   let ys = scan (+) 0 (map (\j -> let v = i * m + j
                                                   in if v >= k then ten[v] else v % 3 + d) (iota m))
                   in (ys, ten[if i == za then 10 else 0] + d)) (iota n))
