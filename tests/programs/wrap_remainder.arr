-- A user's `(i + c) % n` over `i < n` runs as a conditional subtraction
-- where `c` is known to lie in `0..n` (`loopy::wrap`: `c` is 0, 1 or
-- `x % n`), and the loop is cut at the wrap-around; elsewhere it keeps its
-- `%`. Every shift (0, n, negative, beyond n, the i64 extremes) and every
-- length (0, 1, short, long) must give what the interpreter gives.

-- ==
-- entry: shifted
-- input { 0i64 [1, 2, 3, 4, 5] } auto output
-- input { 5i64 [1, 2, 3, 4, 5] } auto output
-- input { 2i64 [1, 2, 3, 4, 5] } auto output
-- input { -2i64 [1, 2, 3, 4, 5] } auto output
-- input { 7i64 [1, 2, 3, 4, 5] } auto output
-- input { -5i64 [1, 2, 3, 4, 5] } auto output
-- input { 9223372036854775807i64 [1, 2, 3, 4, 5] } auto output
-- input { -9223372036854775808i64 [1, 2, 3, 4, 5] } auto output
-- input { 3i64 empty([0]i32) } auto output
-- input { -1i64 [7] } auto output
-- input { 9223372036854775807i64 [7] } auto output
-- random input { 37i64 [1000]i32 } auto output
-- random input { -999i64 [1000]i32 } auto output

entry shifted [n] (s: i64) (xs: [n]i32) : [n]i32 =
  map (\i -> xs[i] + xs[(i + s % n) % n]) (iota n)

-- The shift first, computed before the map.
-- ==
-- entry: before
-- input { 0i64 [1, 2, 3, 4, 5] } auto output
-- input { 4i64 [1, 2, 3, 4, 5] } auto output
-- input { -9223372036854775808i64 [1, 2, 3] } auto output
-- input { 9223372036854775807i64 [1] } auto output
-- random input { 1001i64 [1000]f32 } auto output

entry before [n] (s: i64) (xs: [n]f32) : [n]f32 =
  let c = s % n
  in map (\i -> xs[(c + i) % n] - xs[i]) (iota n)

-- Constant shifts: 0 and 1 are in range whenever the map runs, 2 and the
-- length itself are not known to be (n = 1), nor is -1.
-- ==
-- entry: constants
-- input { [1, 2, 3, 4, 5] } auto output
-- input { [1, 2] } auto output
-- input { [7] } auto output
-- input { empty([0]i32) } auto output

entry constants [n] (xs: [n]i32) : ([n]i32, [n]i32, [n]i32, [n]i32, [n]i32) =
  ( map (\i -> xs[(i + 0) % n]) (iota n)
  , map (\i -> xs[(i + 1) % n]) (iota n)
  , map (\i -> xs[(i + 2) % n]) (iota n)
  , map (\i -> xs[(i + n) % n]) (iota n)
  , map (\i -> xs[(i - 1) % n]) (iota n) )

-- An unbounded shift keeps its `%`; the rows of a matrix rotated by
-- `x % m` along each row.
-- ==
-- entry: rows
-- input { 1i64 [[1, 2, 3], [4, 5, 6]] } auto output
-- input { -4i64 [[1, 2, 3], [4, 5, 6]] } auto output
-- input { 2i64 empty([0][3]i32) } auto output
-- input { 2i64 empty([2][0]i32) } auto output
-- random input { 77i64 [20][33]i32 } auto output

entry rows [n] [m] (s: i64) (xss: [n][m]i32) : ([n][m]i32, [n][m]i32) =
  ( map (\row -> map (\j -> row[(j + s % m) % m]) (iota m)) xss
  , map (\row -> map (\j -> row[(j + s) % m]) (iota m)) xss )
