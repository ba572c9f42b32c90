-- A map whose rows come from an `if` (an edge row `g[i]`, an interior row
-- by `tabulate`) writes each row in place when the branch's size is the
-- result's row size (`loopy::rows`, branch_rows), and otherwise runs as
-- lowered: rows of a size other than row 0's stop with a size mismatch,
-- after any error computing that row (issue 20, jacobi interior).

-- ==
-- entry: interior
-- input { 1 empty([3][0]f32) } output { empty([3][0]f32) }
-- input { 2 [[2.0f32]] } output { [[2.0f32]] }
-- input { 1 [[1f32, 2f32, 3f32, 4f32, 5f32]] } output { [[1f32, 2f32, 3f32, 4f32, 5f32]] }
-- input { 1 [[1f32], [2f32], [3f32]] } output { [[1f32], [2f32], [3f32]] }
-- input { 1 [[1f32, 2f32], [3f32, 4f32]] } output { [[1f32, 2f32], [3f32, 4f32]] }
-- input { 0 [[1f32, 2f32], [3f32, 4f32]] } output { [[1f32, 2f32], [3f32, 4f32]] }
-- input { 3 [[0f32, 4f32, 0f32, 0f32, 1f32], [0f32, 0f32, 0f32, 8f32, 1f32], [0f32, 2f32, 0f32, 0f32, 1f32], [5f32, 0f32, 1f32, 0f32, 1f32]] }
-- output { [[0.0f32, 4.0f32, 0.0f32, 0.0f32, 1.0f32], [0.0f32, 1.296875f32, 1.03125f32, 0.53125f32, 1.0f32], [0.0f32, 0.703125f32, 0.671875f32, 0.90625f32, 1.0f32], [5.0f32, 0.0f32, 1.0f32, 0.0f32, 1.0f32]] }

entry interior [n] [m] (sweeps: i32) (g0: [n][m]f32) : [n][m]f32 =
  loop g = g0 for _s < sweeps do
    map (\i ->
      if i == 0 || i == n - 1 then g[i]
      else tabulate m (\j ->
        if j == 0 || j == m - 1 then g[i, j]
        else 0.25f32 * (g[i - 1, j] + g[i + 1, j] + g[i, j - 1] + g[i, j + 1])))
    (iota n)

-- Row 0 is an edge row: its size is the result's; an interior row of
-- another size stops, unless computing it fails first.
-- ==
-- entry: mismatch
-- input { 3i64 [[1, 2, 3], [4, 5, 6], [7, 8, 9]] } output { [[1, 2, 3], [5, 6, 7], [7, 8, 9]] }
-- input { 2i64 [[1, 2, 3]] } output { [[1, 2, 3]] }
-- input { 2i64 [[1, 2, 3], [4, 5, 6], [7, 8, 9]] } error: ^size mismatch: 3 and 2 at .*branch_rows\.arr:38:3$
-- input { 2i64 [[1, 2, 3], [4, 5, 6]] } error: ^size mismatch: 3 and 2 at .*branch_rows\.arr:38:3$
-- input { 4i64 [[1, 2, 3], [4, 5, 6], [7, 8, 9]] } error: ^index 3 out of bounds for array of length 3 at .*branch_rows\.arr:38:61$

entry mismatch [n] [m] (k: i64) (g: [n][m]i32) : [n][]i32 =
  map (\i -> if i % 2 == 0 then g[i] else tabulate k (\j -> g[i, j] + 1)) (iota n)

-- Row 0 is computed: its size (`k`) is the result's, and the rows copied
-- from `g` must match it.
-- ==
-- entry: first_computed
-- input { 3i64 [[1, 2, 3], [4, 5, 6], [7, 8, 9]] } output { [[1, 3, 5], [8, 10, 12], [7, 9, 11]] }
-- input { 2i64 [[1, 2, 3], [4, 5, 6], [7, 8, 9]] } error: ^size mismatch: 2 and 3 at .*branch_rows\.arr:50:3$
-- input { 4i64 [[1, 2, 3], [4, 5, 6], [7, 8, 9]] } error: ^index 3 out of bounds for array of length 3 at .*branch_rows\.arr:51:37$
-- input { 2i64 [[1, 2, 3]] } output { [[1, 3]] }

entry first_computed [n] [m] (k: i64) (g: [n][m]i32) : [n][]i32 =
  map (\i -> if i % 2 == 1 then map (\x -> x * 2) g[i]
             else tabulate k (\j -> g[i, j] + i32.i64 j)) (iota n)
