-- Row reductions in loops whose state is an array: each round reduces the
-- row with an element of the state and writes the result into it. On a
-- GPU a warp or a block still reduces each row (docs/gpu.md, "Row
-- reductions"): the state is one buffer per group, which the group's
-- first thread writes between two synchronisations of the group and every
-- thread reads in the folds. Rows shorter than a warp, empty rows, rows of
-- 2,000 elements (a block each when few).

-- ==
-- entry: rotating
-- input { 4i64 [[1i32, 2i32, 3i32], [4i32, 5i32, 6i32]] } auto output
-- input { 0i64 [[1i32, 2i32, 3i32]] } output { [0i32] }
-- input { 5i64 empty([3][0]i32) } output { [0i32, 0i32, 0i32] }
-- random input { 7i64 [40][7]i32 } auto output
-- random input { 5i64 [70][33]i32 } auto output
-- random input { 4i64 [3][2000]i32 } auto output
-- random input { 3i64 [1][5000]i32 } auto output

-- Round i sums the row shifted by state element i % 3 and stores the sum
-- there.
entry rotating (k: i64) (xss: [][]i32) : []i32 =
  map (\row ->
         let v = loop v = replicate 3 0i32 for i < k do
           let s = reduce (+) 0 (map (\x -> x + v[i % 3]) row)
           in v with [i % 3] = s
         in v[0] + v[1] * 3 + v[2] * 5) xss

-- ==
-- entry: compose_into
-- input { [[1i32, 2i32, 3i32], [4i32, 5i32, 6i32]] } auto output
-- input { empty([2][0]i32) } auto output
-- random input { [40][7]i32 } auto output
-- random input { [9][100]i32 } auto output
-- random input { [3][2000]i32 } auto output

-- A `while` loop with an array state: affine maps composed along the row
-- (not commutative) with the state's last element, the result written at
-- the round's position, until a result is even or four rounds have run.
entry compose_into (xss: [][]i32) : []i32 =
  map (\row ->
         let (_, v, _) =
           loop (k, v, odd) = (0i64, replicate 4 1i32, true) while odd && k < 4 do
             let (a, b) = reduce (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1i32, 0i32)
                                 (map (\x -> (x % 3 - 1, x - v[(k + 3) % 4])) row)
             let r = a * 7 + b
             in (k + 1, v with [k] = r, r % 2 != 0)
         in v[0] + v[1] + v[2] + v[3]) xss

-- ==
-- entry: fails
-- input { 40i64 7i64 -1i64 0i64 -1i64 } auto output
-- input { 40i64 7i64 9i64 2i64 -1i64 } error: ^index 5 out of bounds for array of length 3 at .*row_reduce_state\.arr:70:
-- input { 40i64 7i64 9i64 2i64 10i64 } error: ^index 5 out of bounds for array of length 3 at .*row_reduce_state\.arr:70:
-- input { 40i64 7i64 9i64 2i64 9i64 } error: ^index 103 out of bounds for array of length 10 at .*row_reduce_state\.arr:68:
-- input { 40i64 7i64 9i64 0i64 9i64 } error: ^index 5 out of bounds for array of length 3 at .*row_reduce_state\.arr:70:
-- input { 40i64 7i64 9i64 2i64 8i64 } error: ^index 103 out of bounds for array of length 10 at .*row_reduce_state\.arr:68:
-- input { 3i64 2000i64 1i64 1i64 2i64 } error: ^index 5 out of bounds for array of length 3 at .*row_reduce_state\.arr:70:
-- input { 3i64 2000i64 2i64 1i64 1i64 } error: ^index 1100 out of bounds for array of length 10 at .*row_reduce_state\.arr:68:

-- Row wr writes its state out of bounds in round wk (index 5); row fr's
-- reduction reads out of bounds in round 1 from iteration m / 2 on
-- (index j + 100). The first in sequential order is reported.
entry fails (n: i64) (m: i64) (wr: i64) (wk: i64) (fr: i64) : []i32 =
  let ten = iota 10
  in map (\i ->
            let v = loop v = replicate 3 0i32 for k < 3 do
              let s = reduce (+) 0 (map (\j -> if i == fr && k == 1 && j >= m / 2
                                               then i32.i64 ten[j + 100]
                                               else v[k % 3] + i32.i64 ((i + j) % 5)) (iota m))
              in v with [if i == wr && k == wk then 5 else k] = s
            in v[0] + v[1] + v[2]) (iota n)

-- ==
-- entry: branch_copy
-- input { [1i64, 2i64, 3i64] [1f64, 2f64, 3f64, 4f64] } auto output
-- input { [1i64, 2i64] empty([0]f64) } auto output
-- random input { [40]i64 [3000]f64 } auto output

-- A branch that returns one of two scratch arrays (a copy, or a copy
-- updated in place) keeps a row per thread: a group could not tell which
-- buffer the result names (the random tester's seed 9121 freed one twice).
entry branch_copy (ks: []i64) (ys: []f64) : []f64 =
  map (\k -> reduce (+) 0 (let s = map (\y -> y * 2) ys
                           in if length s == 0 then s else s with [0] = f64.i64 k)) ks
