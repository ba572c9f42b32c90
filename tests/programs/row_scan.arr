-- Row bodies that scan the row into a scratch array (with a reduction
-- beside the scan, or over its result at another index): on a GPU the
-- row's warp or block runs the scan together, as the look-back kernel runs
-- a tile (docs/gpu.md, "Row reductions"); before, a thread ran each row.
-- Rows shorter than a warp, empty rows, rows of 2,000 and 5,000 elements
-- (a block each when few), non-commutative operators, and checks that
-- fail in the scan (its totals pass flags them), in the reduction beside
-- it and after them, in early and late rows.

-- ==
-- entry: prefixed
-- input { [[1i32, 5i32, 3i32], [4i32, 0i32, 6i32]] } auto output
-- input { empty([3][0]i32) } auto output
-- random input { [40][7]i32 } auto output
-- random input { [70][33]i32 } auto output
-- random input { [3][2000]i32 } auto output
-- random input { [1][5000]i32 } auto output

-- A row's prefix sums into a scratch array, the sum of their products
-- with the row beside them, and the middle prefix sum.
entry prefixed (xss: [][]i32) : []i32 =
  map (\row -> let ys = scan (+) 0 row
               in reduce (+) 0 (map2 (*) ys row) + (if length ys > 0 then ys[length ys / 2] else 0)) xss

-- ==
-- entry: composed_prefixes
-- input { [[2i32, 3i32, 1i32], [1i32, 0i32, 5i32]] } auto output
-- input { empty([2][0]i32) } auto output
-- random input { [40][7]i32 } auto output
-- random input { [3][2000]i32 } auto output
-- random input { [1][5000]i32 } auto output

-- Affine maps composed along the row (first one first: not commutative),
-- every prefix kept; then a composition over the prefixes' results.
entry composed_prefixes (xss: [][]i32) : []i32 =
  map (\row -> let ps = scan (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1i32, 0i32)
                             (map (\x -> (x % 3 - 1, x)) row)
               let (a, b) = reduce (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1i32, 0i32)
                                   (map (\(p, q) -> (q % 3 - 1, p + q)) (rotate 1 ps))
               in a * 5 + b) xss

-- ==
-- entry: scan_fails
-- input { 40i64 7i64 -1i64 -1i64 -1i64 } auto output
-- input { 40i64 7i64 9i64 -1i64 -1i64 } error: ^index 103 out of bounds for array of length 10 at .*row_scan\.arr:60:
-- input { 40i64 7i64 -1i64 9i64 -1i64 } error: ^index 202 out of bounds for array of length 10 at .*row_scan\.arr:61:
-- input { 40i64 7i64 -1i64 -1i64 9i64 } error: ^index 309 out of bounds for array of length 10 at .*row_scan\.arr:62:
-- input { 40i64 7i64 30i64 5i64 5i64 } error: ^index 202 out of bounds for array of length 10 at .*row_scan\.arr:61:
-- input { 40i64 7i64 5i64 5i64 9i64 } error: ^index 103 out of bounds for array of length 10 at .*row_scan\.arr:60:
-- input { 3i64 2000i64 -1i64 -1i64 1i64 } error: ^index 301 out of bounds for array of length 10 at .*row_scan\.arr:62:
-- input { 3i64 2000i64 1i64 2i64 -1i64 } error: ^index 1100 out of bounds for array of length 10 at .*row_scan\.arr:60:
-- input { 3i64 2000i64 2i64 1i64 -1i64 } error: ^index 866 out of bounds for array of length 10 at .*row_scan\.arr:61:
-- input { 3i64 2000i64 -1i64 1i64 1i64 } error: ^index 866 out of bounds for array of length 10 at .*row_scan\.arr:61:

-- Row sr fails in the scan from iteration m / 2 on, row rr in the
-- reduction over the prefixes from iteration m / 3 on, row ar after them.
entry scan_fails (n: i64) (m: i64) (sr: i64) (rr: i64) (ar: i64) : []i64 =
  let ten = iota 10
  in map (\i ->
            let ps = scan (+) 0 (map (\j -> if i == sr && j >= m / 2 then ten[j + 100] else (i * j) % 7) (iota m))
            let s = reduce (+) 0 (map2 (\j p -> if i == rr && j >= m / 3 then ten[j + 200] else p % 5) (iota m) ps)
            in if i == ar then ten[i + 300] else s + ps[m - 1]) (iota n)

-- ==
-- entry: negative_scratch
-- input { 3i64 [[1i32, 5i32, 3i32], [4i32, 0i32, 6i32]] } output { [12i32, 13i32] }
-- input { -1i64 [[1i32, 5i32, 3i32]] } error: ^Range 0\.\.1\.\.<-1 is invalid at .*row_scan\.arr:74:
-- input { -1i64 empty([0][3]i32) } output { empty([0]i32) }

-- The row's group makes its scratch arrays before its rows: one of a
-- negative size is not made, and the row's size check reports it (found
-- by `arrc random`, seed 9010, where the group reported a full heap).
entry negative_scratch (k: i64) (xss: [][]i32) : []i32 =
  map (\row -> let ps = scan (+) 0 (tabulate k (\j -> i32.i64 j))
               in reduce (+) 0 row + (if k > 0 then ps[k - 1] else 0)) xss
