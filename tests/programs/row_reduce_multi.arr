-- Row reductions one after another over each row, the later ones using
-- the earlier ones' results (a maximum, then a sum of exponentials from
-- it): on a GPU a warp or a block reduces each in turn and every thread
-- of the group gets the earlier results (docs/gpu.md, "Row reductions").
-- Shapes for both forms, rows shorter than a warp and empty rows; under
-- shrunk launches (ARRC_GPU_SHRINK=1) more rows than warps and blocks.

-- ==
-- entry: logsumexp
-- input { [[1f32, 2f32, 3f32], [0f32, -1f32, 5f32]] } output { [3.407606f32, 5.0091085f32] }
-- input { empty([0][4]f32) } output { empty([0]f32) }
-- random input { [40][7]f32 } auto output
-- random input { [9][100]f32 } auto output
-- random input { [3][2000]f32 } auto output
-- random input { [1][5000]f32 } auto output
entry logsumexp (xss: [][]f32) : []f32 =
  map (\row -> let m = reduce f32.max (-f32.inf) row
               in m + f32.log (reduce (+) 0 (map (\x -> f32.exp (x - m)) row))) xss

-- ==
-- entry: centre_then_compose
-- input { [[2i32, 3i32, 1i32], [1i32, 1i32, 1i32]] } output { [-8i32, 4i32] [0i32, 0i32] }
-- input { empty([3][0]i32) } output { [0i32, 0i32, 0i32] [0i32, 0i32, 0i32] }
-- random input { [50][33]i32 } auto output
-- random input { [70][5]i32 } auto output
-- random input { [5][1500]i32 } auto output
-- random input { [2][2600]i32 } auto output

-- The row's minimum, then affine maps x -> a * x + b built from it and
-- composed along the row, first one first (associative, not
-- commutative), then a third reduction from that result.
entry centre_then_compose (xss: [][]i32) : ([]i32, []i32) =
  unzip (map (\row ->
                let lo = reduce i32.min i32.highest row
                let (a, b) = reduce (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1i32, 0i32)
                                    (map (\x -> (x - lo - 1, x - lo)) row)
                let c = reduce (+) 0 (map (\x -> x * a - b) row)
                in (a * b - c + i32.i64 (length row) % 2, i32.min 0 (lo - a))) xss)

-- ==
-- entry: fails
-- input { 40i64 7i64 -1i64 -1i64 1000000i64 } auto output
-- input { 40i64 7i64 -1i64 -1i64 100i64 } error: ^index 100 out of bounds for array of length 10 at .*row_reduce_multi\.arr:63:
-- input { 40i64 7i64 9i64 -1i64 100i64 } error: ^division by zero at .*row_reduce_multi\.arr:64:
-- input { 40i64 7i64 3i64 -1i64 100i64 } error: ^division by zero at .*row_reduce_multi\.arr:64:
-- input { 40i64 7i64 -1i64 12i64 100i64 } error: ^division by zero at .*row_reduce_multi\.arr:66:
-- input { 40i64 7i64 -1i64 12i64 1000000i64 } error: ^division by zero at .*row_reduce_multi\.arr:66:
-- input { 3i64 2000i64 -1i64 -1i64 3500i64 } error: ^index 3500 out of bounds for array of length 10 at .*row_reduce_multi\.arr:63:
-- input { 3i64 2000i64 1i64 -1i64 3500i64 } error: ^index 3500 out of bounds for array of length 10 at .*row_reduce_multi\.arr:63:
-- input { 3i64 2000i64 0i64 -1i64 3500i64 } error: ^division by zero at .*row_reduce_multi\.arr:64:
-- input { 2i64 3000i64 -1i64 0i64 100000i64 } error: ^division by zero at .*row_reduce_multi\.arr:66:
-- input { 2i64 3000i64 -1i64 -1i64 100000i64 } auto output
-- input { 1i64 5000i64 -1i64 0i64 4900i64 } error: ^index 4900 out of bounds for array of length 10 at .*row_reduce_multi\.arr:63:

-- Checks in the first reduction (the first element at or past k reads
-- out of bounds), between the reductions (row zp divides by zero) and in
-- the second one (row zq divides by zero in every iteration): the first
-- in sequential order is reported, whichever row, reduction or lane
-- meets it first on a GPU.
entry fails (n: i64) (m: i64) (zp: i64) (zq: i64) (k: i64) : []i64 =
  let ten = iota 10
  in map (\i ->
             let s = reduce (+) 0 (map (\j -> let v = i * m + j in if v >= k then ten[v] else v % 3) (iota m))
             let d = 1000 / (i - zp) + s
             let t = reduce (+) 0 (map (\j ->
                         j * d / (if i == zq then 0 else 1)) (iota m))
             in s + t) (iota n)
