-- Row reductions inside branches and sequential loops of the map body,
-- and rows whose reduction also fills a scratch array that the rest of
-- the body reads: on a GPU a warp or a block still reduces each row, its
-- threads taking the same branch and loop iterations (docs/gpu.md,
-- "Row reductions"). Shapes for both forms, rows shorter than a warp and
-- empty rows; under shrunk launches (ARRC_GPU_SHRINK=1) more rows than
-- warps and blocks.

-- ==
-- entry: maybe_sums
-- input { 0i64 [[1i32, 2i32], [3i32, 4i32]] } output { [0i32, 0i32] }
-- input { 1i64 [[1i32, 2i32], [3i32, 4i32]] } output { [3i32, 7i32] }
-- input { 1i64 empty([3][0]i32) } output { [0i32, 0i32, 0i32] }
-- random input { 1i64 [40][7]i32 } auto output
-- random input { 2i64 [9][100]i32 } auto output
-- random input { 2i64 [3][2000]i32 } auto output
-- random input { 0i64 [3][2000]i32 } auto output
entry maybe_sums (n: i64) (xss: [][]i32) : []i32 =
  map (\row -> if n == 0 then 0 else reduce (+) 0 row) xss

-- ==
-- entry: maybe_compose
-- input { true [[2i32, 3i32, 1i32]] [[1i32, 0i32, 5i32]] } output { [6i32] [8i32] }
-- input { false [[2i32, 3i32, 1i32]] [[1i32, 0i32, 5i32]] } output { [3i32] [-1i32] }
-- random input { true [50][33]i32 [50][33]i32 } auto output
-- random input { false [50][33]i32 [50][33]i32 } auto output
-- random input { true [3][1500]i32 [3][1500]i32 } auto output
-- random input { false [2][2600]i32 [2][2600]i32 } auto output

-- Affine maps composed along each row, first one first (associative,
-- not commutative), in one branch; the other branch reduces with a
-- different operator.
entry maybe_compose (forward: bool) (ass: [][]i32) (bss: [][]i32) : ([]i32, []i32) =
  unzip (map2 (\as bs ->
                 if forward
                 then reduce (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1i32, 0i32) (zip as bs)
                 else (reduce i32.max i32.lowest as, reduce i32.min i32.highest bs - 1)) ass bss)

-- ==
-- entry: rounds
-- random input { 3i64 [40][7]i32 } auto output
-- random input { 0i64 [40][7]i32 } auto output
-- random input { 2i64 [9][100]i32 } auto output
-- random input { 2i64 [3][2000]i32 } auto output
-- random input { 4i64 [1][5000]i32 } auto output

-- A sequential loop over a row: each round reduces the row again with a
-- weight from the rounds before (a non-commutative composition).
entry rounds (k: i64) (xss: [][]i32) : []i32 =
  map (\row ->
         loop acc = 1i32 for i < k do
           let (a, b) = reduce (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1i32, 0i32)
                               (map (\x -> (x % 3 - 1, x - acc)) row)
           in a * 7 + b + i32.i64 i) xss

-- ==
-- entry: doubled
-- input { [[1i32, 2i32, 3i32]] } output { [20i32] }
-- input { empty([2][0]i32) } output { [0i32, 0i32] }
-- random input { [40][7]i32 } auto output
-- random input { [70][33]i32 } auto output
-- random input { [3][2000]i32 } auto output
-- random input { [1][5000]i32 } auto output

-- The row's mapped values fill a scratch array while the reduction sums
-- them; the element in the middle is read after the reduction.
entry doubled (xss: [][]i32) : []i32 =
  map (\row -> let ys = map (\x -> x * 2 + 1) row
               in reduce (+) 0 ys + (if length ys > 0 then ys[length ys / 2] else 0)) xss

-- ==
-- entry: fails
-- input { 40i64 7i64 5i64 -1i64 1000000i64 } auto output
-- input { 40i64 7i64 5i64 -1i64 100i64 } error: ^index 100 out of bounds for array of length 10 at .*row_reduce_nested\.arr:92:
-- input { 40i64 7i64 5i64 9i64 100i64 } error: ^division by zero at .*row_reduce_nested\.arr:91:
-- input { 40i64 7i64 5i64 30i64 100i64 } error: ^index 100 out of bounds for array of length 10 at .*row_reduce_nested\.arr:92:
-- input { 40i64 7i64 1i64 3i64 100i64 } error: ^division by zero at .*row_reduce_nested\.arr:91:
-- input { 3i64 2000i64 2i64 -1i64 3500i64 } error: ^index 3500 out of bounds for array of length 10 at .*row_reduce_nested\.arr:92:
-- input { 3i64 2000i64 2i64 1i64 3500i64 } error: ^division by zero at .*row_reduce_nested\.arr:91:
-- input { 3i64 2000i64 3i64 2i64 4500i64 } error: ^index 4500 out of bounds for array of length 10 at .*row_reduce_nested\.arr:92:
-- input { 2i64 3000i64 3i64 -1i64 100000i64 } auto output

-- Checks before and in the reductions of a loop's rounds: from the
-- second round on, elements at or past k read out of bounds; row z
-- divides by zero before its last round's reduction. The first in
-- sequential order is reported.
entry fails (n: i64) (m: i64) (rs: i64) (z: i64) (k: i64) : []i64 =
  let ten = iota 10
  in map (\i ->
            loop acc = 0 for r < rs do
              let d = 100 / (if i == z && r == rs - 1 then 0 else 1)
              in acc + d + reduce (+) 0 (map (\j -> let v = i * m + j in if r > 0 && v >= k then ten[v] else v % 3) (iota m))) (iota n)
