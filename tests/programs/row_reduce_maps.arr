-- Row bodies with maps over the row beside their reductions: a map into
-- a scratch array that a reduction then reads (at a shifted or rotated
-- index), a map written at another index than its own (`concat`: element
-- j goes to j + 1), a map writing the output's row after the reductions
-- (normalising a row), and a loop whose array state starts as a map of the
-- row. On a GPU a warp or a block shares each map's iterations as it
-- shares a reduction's, and synchronises around it (docs/gpu.md, "Row
-- reductions"); before, a thread ran each row. Rows shorter than a warp,
-- empty rows and no rows, rows of 2,000 and 5,000 elements (a block each
-- when few), non-commutative operators.

-- ==
-- entry: normalise
-- input { [[1i32, 5i32, 3i32], [4i32, 0i32, 6i32]] }
-- output { [[-8i32, 4i32, -2i32], [1i32, -11i32, 7i32]] }
-- input { empty([3][0]i32) } output { empty([3][0]i32) }
-- input { empty([0][4]i32) } output { empty([0][4]i32) }
-- random input { [40][7]i32 } auto output
-- random input { [70][33]i32 } auto output
-- random input { [3][2000]i32 } auto output
-- random input { [1][5000]i32 } auto output

-- The row's maximum, then a sum relative to it, then the row rewritten
-- relative to both.
entry normalise (xss: [][]i32) : [][]i32 =
  map (\row -> let m = reduce i32.max i32.lowest row
               let s = reduce (+) 0 (map (\x -> (x - m) % 5) row)
               in map (\x -> (x - m) * 3 + s) row) xss

-- ==
-- entry: shifted
-- input { [[1i32, 5i32, 3i32], [4i32, 0i32, 6i32]] } auto output
-- input { empty([3][0]i32) } auto output
-- random input { [40][7]i32 } auto output
-- random input { [70][33]i32 } auto output
-- random input { [3][2000]i32 } auto output

-- The row mapped into elements 1.. of a scratch array after a constant,
-- then affine maps composed along it (first one first) and its last
-- element.
entry shifted (xss: [][]i32) : []i32 =
  map (\row -> let ys = concat [7] (map (\x -> x * 3) row)
               let (a, b) = reduce (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1i32, 0i32)
                                   (map (\y -> (y % 3 - 1, y)) ys)
               in a * 7 + b + ys[length ys - 1]) xss

-- ==
-- entry: rotated
-- input { [[1i32, 5i32, 3i32], [4i32, 0i32, 6i32]] } auto output
-- input { empty([3][0]i32) } auto output
-- random input { [40][7]i32 } auto output
-- random input { [3][2000]i32 } auto output
-- random input { [1][5000]i32 } auto output

-- The row mapped into a scratch array, which the composition reads one
-- element on (each thread reads what another wrote).
entry rotated (xss: [][]i32) : []i32 =
  map (\row -> let ys = map (\x -> x * 3 - 1) row
               let (a, b) = reduce (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1i32, 0i32)
                                   (map (\y -> (y % 3 - 1, y)) (rotate 1 ys))
               in a + b + (if length ys > 0 then ys[0] else 0)) xss

-- ==
-- entry: doubled_state
-- input { 4i64 [[1i64, 5i64, 3i64], [4i64, 0i64, 6i64]] } auto output
-- input { 0i64 [[1i64, 5i64, 3i64]] } auto output
-- random input { 5i64 [40][7]i64 } auto output
-- random input { 3i64 [3][2000]i64 } auto output

-- A loop whose array state starts as the row doubled; each round adds an
-- element of the state to the row and stores the sum there.
entry doubled_state [m] (k: i64) (xss: [][m]i64) : []i64 =
  map (\row -> let v = loop v = map (* 2) row for i < k do
                         let s = reduce (+) 0 (map (+ v[i % m]) row)
                         in v with [i % m] = s
               in v[0] + v[m - 1]) xss

-- ==
-- entry: fails
-- input { 40i64 7i64 -1i64 -1i64 -1i64 -1i64 } auto output
-- input { 40i64 7i64 9i64 -1i64 -1i64 -1i64 } error: ^index 109 out of bounds for array of length 10 at .*row_reduce_maps\.arr:101:
-- input { 40i64 7i64 -1i64 9i64 -1i64 -1i64 } error: ^index 203 out of bounds for array of length 10 at .*row_reduce_maps\.arr:102:
-- input { 40i64 7i64 -1i64 -1i64 9i64 -1i64 } error: ^index 309 out of bounds for array of length 10 at .*row_reduce_maps\.arr:103:
-- input { 40i64 7i64 -1i64 -1i64 -1i64 9i64 } error: ^index 402 out of bounds for array of length 10 at .*row_reduce_maps\.arr:104:
-- input { 40i64 7i64 30i64 5i64 -1i64 5i64 } error: ^index 203 out of bounds for array of length 10 at .*row_reduce_maps\.arr:102:
-- input { 40i64 7i64 -1i64 -1i64 5i64 5i64 } error: ^index 305 out of bounds for array of length 10 at .*row_reduce_maps\.arr:103:
-- input { 40i64 7i64 -1i64 9i64 -1i64 8i64 } error: ^index 402 out of bounds for array of length 10 at .*row_reduce_maps\.arr:104:
-- input { 3i64 2000i64 -1i64 -1i64 -1i64 1i64 } error: ^index 1066 out of bounds for array of length 10 at .*row_reduce_maps\.arr:104:
-- input { 3i64 2000i64 2i64 -1i64 -1i64 1i64 } error: ^index 1066 out of bounds for array of length 10 at .*row_reduce_maps\.arr:104:
-- input { 3i64 2000i64 -1i64 1i64 -1i64 1i64 } error: ^index 1200 out of bounds for array of length 10 at .*row_reduce_maps\.arr:102:
-- input { 3i64 2000i64 -1i64 -1i64 1i64 1i64 } error: ^index 301 out of bounds for array of length 10 at .*row_reduce_maps\.arr:103:
-- input { 3i64 2000i64 -1i64 2i64 -1i64 1i64 } error: ^index 1066 out of bounds for array of length 10 at .*row_reduce_maps\.arr:104:

-- Row br fails before its reduction, row rr in the reduction from
-- iteration m / 2 on, row ar between the reduction and the map, row mr in
-- the map writing the output's row from iteration m / 3 on. The first in
-- sequential order is reported.
entry fails (n: i64) (m: i64) (br: i64) (rr: i64) (ar: i64) (mr: i64) : [][]i64 =
  let ten = iota 10
  in map (\i ->
            let b = if i == br then ten[i + 100] else i % 3
            let mx = reduce i64.max 0 (map (\j -> if i == rr && j >= m / 2 then ten[j + 200] else (i * j + b) % 11) (iota m))
            let d = if i == ar then ten[i + 300] else mx
            in map (\j -> if i == mr && j >= m / 3 then ten[j + 400] else (i + j) % 5 + d) (iota m)) (iota n)
