-- A map over `iota (n * m)` using its index through `k / m` and `k % m`
-- is a nest over `iota n` and `iota m`, flattened (`simplify::flat_index`,
-- issue 20), also when it reads `k` itself (rebuilt as `i * m + j`);
-- `plane`'s `unflatten n m` of that is the nest itself.
-- `cube`'s `n * m` is not provably without wrap-around (a third dimension
-- may be zero), so its division and remainder stay.
-- nodes: div=1 mod=1 flatten=0 unflatten=1 map=3
-- ==
-- entry: plane
-- input { [[1i64, 2i64, 3i64], [4i64, 5i64, 6i64]] } output { [[1i64, 12i64, 23i64], [34i64, 45i64, 56i64]] }
-- input { empty([0][2]i64) } output { empty([0][2]i64) }

-- ==
-- entry: cube
-- input { [[[1i64], [2i64]], [[3i64], [4i64]]] } output { [[1i64, 2i64], [3i64, 4i64]] }

entry plane [n] [m] (g: [n][m]i64) : [n][m]i64 =
  unflatten n m (tabulate (n * m) (\k -> g[k / m, k % m] + 10 * k))

entry cube [n] [m] [p] (g: [n][m][p]i64) : [n][m]i64 =
  unflatten n m (tabulate (n * m) (\k -> if p == 0 then 0 else g[k / m, k % m, 0]))
