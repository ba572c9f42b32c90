-- A map over `iota (n * m)` that splits its index with `k / m` and
-- `k % m` is a nest over `n` rows of `m` (`simplify-flat-index`, issue
-- 20): the same values in the same order, so the same first error, for
-- empty, single and odd sizes, with `k` read directly too and the product
-- written either way round.

-- ==
-- entry: stencil
-- input { empty([0][3]f32) } output { empty([0][3]f32) }
-- input { empty([3][0]f32) } output { empty([3][0]f32) }
-- input { [[2.0f32]] } output { [[2.0f32]] }
-- input { [[1.0f32, 2.0f32, 3.0f32, 4.0f32, 5.0f32]] } output { [[1.0f32, 2.0f32, 3.0f32, 4.0f32, 5.0f32]] }
-- input { [[1.0f32], [2.0f32], [3.0f32]] } output { [[1.0f32], [2.0f32], [3.0f32]] }
-- input { [[0.0f32, 4.0f32, 0.0f32, 0.0f32, 1.0f32], [0.0f32, 0.0f32, 0.0f32, 8.0f32, 1.0f32], [0.0f32, 2.0f32, 0.0f32, 0.0f32, 1.0f32]] }
-- output { [[0.0f32, 4.0f32, 0.0f32, 0.0f32, 1.0f32], [0.0f32, 1.5f32, 2.0f32, 0.25f32, 1.0f32], [0.0f32, 2.0f32, 0.0f32, 0.0f32, 1.0f32]] }

entry stencil [n] [m] (g: [n][m]f32) : [n][m]f32 =
  unflatten n m (tabulate (n * m) (\k ->
    let i = k / m
    let j = k % m
    in if i == 0 || j == 0 || i == n - 1 || j == m - 1 then g[i, j]
       else 0.25f32 * (g[i - 1, j] + g[i + 1, j] + g[i, j - 1] + g[i, j + 1])))

-- Row-major order finds the first bad element, column-major another.
-- ==
-- entry: first_error
-- input { [[1, 2, 3], [4, 5, 6], [7, 8, 9]] } output { [[2, 4, 6], [8, 10, 12], [14, 16, 18]] }
-- input { [[1, 2, 3], [4, 5, 700], [-6, 8, 9]] } error: ^assertion failed at .*flat_index\.arr:35:24: Assertion is false: k < 0$
-- input { [[1, 2, -9], [700, 5, 6], [7, 8, 9]] } error: ^assertion failed at .*flat_index\.arr:36:27: Assertion is false: k < 0$
-- input { empty([0][0]i32) } output { empty([0][0]i32) }

entry first_error [n] [m] (g: [n][m]i32) : [n][m]i32 =
  unflatten n m (tabulate (n * m) (\k ->
    let x = g[k / m, k % m]
    in if x > 100 then assert (k < 0) x
       else if x < 0 then assert (k < 0) x
       else x * 2))

-- ==
-- entry: with_k
-- input { [[1i64, 2i64, 3i64], [4i64, 5i64, 6i64]] }
-- output { [[0i64, 1i64, 2i64], [3i64, 4i64, 5i64]] [[1i64, 12i64, 23i64], [34i64, 45i64, 56i64]] }
-- input { [[7i64]] } output { [[0i64]] [[7i64]] }
-- input { empty([2][0]i64) } output { empty([2][0]i64) empty([2][0]i64) }

entry with_k [n] [m] (g: [n][m]i64) : ([n][m]i64, [n][m]i64) =
  let (ks, vs) = unzip (tabulate (n * m) (\k -> (k, k * 10 + g[k / m, k % m])))
  in (unflatten n m ks, unflatten n m vs)

-- `k / n` on `n * m` points: `m` rows of `n`, a transposition.
-- ==
-- entry: swapped
-- input { [[1, 2, 3], [4, 5, 6]] } output { [[1, 4], [2, 5], [3, 6]] }
-- input { empty([0][4]i32) } output { empty([4][0]i32) }
-- input { [[1], [2], [3]] } output { [[1, 2, 3]] }

entry swapped [n] [m] (g: [n][m]i32) : [m][n]i32 =
  unflatten m n (tabulate (n * m) (\k -> g[k % n, k / n]))
