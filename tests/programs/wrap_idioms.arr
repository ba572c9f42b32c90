-- The periodic-stencil idioms of `(i + c) % n` over `i < n` that
-- `loopy::wrap` turns into a conditional subtraction: `(i + n - 1) % n`,
-- `(i - 1 + n) % n`, `(i + n - c) % n` and `(i + c) % n` for constants
-- `c`, whatever `c` is against `n` (a shift not known to be in `0..=n` is
-- reduced modulo `n` once before the nest). Lengths 0, 1, 2 and longer.

-- ==
-- entry: back_one
-- input { [1, 2, 3, 4, 5] } auto output
-- input { [1, 2] } auto output
-- input { [7] } auto output
-- input { empty([0]i32) } auto output
-- random input { [1000]i32 } auto output

entry back_one [n] (xs: [n]i32) : ([n]i32, [n]i32, [n]i32) =
  ( map (\i -> xs[(i + n - 1) % n]) (iota n)
  , map (\i -> xs[(i - 1 + n) % n]) (iota n)
  , map (\i -> xs[i] - xs[(n + i - 1) % n]) (iota n) )

-- `c` = 2, 3 and 7: at or beyond `n` for the short inputs.
-- ==
-- entry: back_c
-- input { [1, 2, 3, 4, 5, 6, 7, 8] } auto output
-- input { [1, 2, 3] } auto output
-- input { [1, 2] } auto output
-- input { [7] } auto output
-- input { empty([0]i32) } auto output
-- random input { [999]i32 } auto output

entry back_c [n] (xs: [n]i32) : ([n]i32, [n]i32, [n]i32) =
  ( map (\i -> xs[(i + n - 2) % n]) (iota n)
  , map (\i -> xs[(i - 3 + n) % n]) (iota n)
  , map (\i -> xs[(i + n - 7) % n]) (iota n) )

-- ==
-- entry: ahead_c
-- input { [1, 2, 3, 4, 5, 6, 7, 8] } auto output
-- input { [1, 2, 3] } auto output
-- input { [1, 2] } auto output
-- input { [7] } auto output
-- input { empty([0]i32) } auto output
-- random input { [1001]i32 } auto output

entry ahead_c [n] (xs: [n]i32) : ([n]i32, [n]i32, [n]i32, [n]i32) =
  ( map (\i -> xs[(i + 2) % n]) (iota n)
  , map (\i -> xs[(i + 3) % n]) (iota n)
  , map (\i -> xs[(i + 7) % n]) (iota n)
  , map (\i -> xs[(i + n + 1) % n]) (iota n) )

-- The shift as a value, not an index: the remainder itself is the result.
-- ==
-- entry: values
-- input { 1i64 } auto output
-- input { 2i64 } auto output
-- input { 3i64 } auto output
-- input { 0i64 } auto output

entry values (n: i64) : ([n]i64, [n]i64, [n]i64) =
  ( map (\i -> (i + n - 1) % n) (iota n)
  , map (\i -> (i + 5) % n) (iota n)
  , map (\i -> (i - 2 + n) % n) (iota n) )

-- A periodic 2-D stencil (Jacobi, a game of life), rows and columns
-- wrapping around.
-- ==
-- entry: jacobi
-- input { 1i64 [[1f32]] } auto output
-- input { 2i64 [[1f32, 2f32], [3f32, 4f32]] } auto output
-- input { 3i64 [[1f32, 2f32, 3f32], [4f32, 5f32, 6f32]] } auto output
-- input { 1i64 empty([0][3]f32) } auto output
-- input { 1i64 empty([3][0]f32) } auto output
-- random input { 4i64 [17][33]f32 } auto output

entry jacobi [n][m] (steps: i64) (g: [n][m]f32) : [n][m]f32 =
  loop g for _s < steps do
    map (\i -> map (\j ->
        0.2f32 * (g[i, j] + g[(i + n - 1) % n, j] + g[(i + 1) % n, j]
                  + g[i, (j - 1 + m) % m] + g[i, (j + 1) % m])) (iota m)) (iota n)

-- ==
-- entry: life
-- input { 1i64 [[0i32, 1i32, 0i32], [0i32, 1i32, 0i32], [0i32, 1i32, 0i32]] } auto output
-- input { 2i64 [[0i32, 1i32, 0i32, 0i32], [0i32, 1i32, 0i32, 0i32], [0i32, 1i32, 0i32, 0i32], [0i32, 0i32, 0i32, 0i32]] } auto output
-- input { 1i64 [[1i32]] } auto output
-- input { 1i64 [[1i32, 1i32]] } auto output
-- random input { 3i64 [20][21]i32 } auto output

entry life [n][m] (steps: i64) (g: [n][m]i32) : [n][m]i32 =
  loop g for _s < steps do
    map (\i -> map (\j ->
        let alive = g[i, j] & 1
        let s = map (\d -> let di = d / 3 - 1
                           let dj = d % 3 - 1
                           in g[(i + di + n) % n, (j + dj + m) % m] & 1) (iota 9)
        let k = i32.sum s - alive
        in if k == 3 || (alive == 1 && k == 2) then 1 else 0) (iota m)) (iota n)

-- The same with the neighbours spelt out, as stencils usually are.
-- ==
-- entry: life8
-- input { 1i64 [[0i32, 1i32, 0i32], [0i32, 1i32, 0i32], [0i32, 1i32, 0i32]] } auto output
-- input { 1i64 [[1i32]] } auto output
-- input { 2i64 [[1i32, 1i32], [0i32, 1i32]] } auto output
-- random input { 3i64 [20][21]i32 } auto output

entry life8 [n][m] (steps: i64) (g: [n][m]i32) : [n][m]i32 =
  loop g for _s < steps do
    map (\i -> map (\j ->
        let (u, d) = ((i + n - 1) % n, (i + 1) % n)
        let (l, r) = ((j - 1 + m) % m, (j + 1) % m)
        let k = (g[u, l] & 1) + (g[u, j] & 1) + (g[u, r] & 1) + (g[i, l] & 1)
              + (g[i, r] & 1) + (g[d, l] & 1) + (g[d, j] & 1) + (g[d, r] & 1)
        let alive = g[i, j] & 1
        in if k == 3 || (alive == 1 && k == 2) then 1 else 0) (iota m)) (iota n)
