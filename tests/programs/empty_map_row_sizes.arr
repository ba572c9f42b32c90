-- A map over no rows still has rows of a size: the interpreter runs its
-- function once on zeros for it. Compiled code computes row 0's size
-- without rows where arithmetic on sizes alone gives it (`loopy::peel`,
-- sizes_alone), and gives rows of size 0 where it reads data or can fail
-- (so does the trial on zeros in these cases).

-- The row's size comes from a branch: `g[i]` (the loop parameter's row
-- size) or `tabulate m`, neither known equal to the other.
-- ==
-- entry: branch
-- input { empty([0][3]f32) } output { empty([0][3]f32) }
-- input { empty([0][0]f32) } output { empty([0][0]f32) }
-- input { [[1f32, 2f32], [3f32, 4f32]] } output { [[1f32, 2f32], [3f32, 4f32]] }

entry branch [n][m] (xs: [n][m]f32) : [n][m]f32 =
  loop g = xs for _s < 1 do
    map (\i -> if i == 0 then g[i] else tabulate m (\j -> g[i, j])) (iota n)

-- Row 0 takes the branch whose row would read out of bounds (no row 0).
-- ==
-- entry: reads_past
-- input { empty([0][3]f32) } output { empty([0][3]f32) }
-- input { empty([0][0]f32) } output { empty([0][0]f32) }
-- input { [[1f32, 2f32], [3f32, 4f32]] } output { [[2f32, 3f32], [3f32, 4f32]] }

entry reads_past [n][m] (xs: [n][m]f32) : [n][m]f32 =
  loop g = xs for _s < 1 do
    map (\i -> if i != 0 then g[i] else tabulate m (\j -> g[i, j] + 1)) (iota n)

-- A size computed from the index: row 0's is `k`; a negative one gives
-- no elements without rows, and stops the program with them.
-- ==
-- entry: from_index
-- input { 0i64 3i64 } output { empty([0][3]i64) }
-- input { 0i64 0i64 } output { empty([0][0]i64) }
-- input { 0i64 -2i64 } output { empty([0][0]i64) }
-- input { 1i64 2i64 } output { [[0i64, 1i64]] }
-- input { 2i64 2i64 } error: ^size mismatch: 2 and 3 at .*empty_map_row_sizes\.arr:42:3$
-- input { 1i64 -2i64 } error: ^Range 0\.\.1\.\.<-2 is invalid at .*empty_map_row_sizes\.arr:42:14$

entry from_index (n: i64) (k: i64) : [n][]i64 =
  map (\i -> iota (k + i)) (iota n)

-- A size that depends on data: no rows give rows of size 0 (zeros choose
-- the empty branch in the trial too).
-- ==
-- entry: from_data
-- input { empty([0]i64) } output { empty([0][0]i64) }
-- input { [1i64, 2i64] } output { [[0i64, 1i64, 2i64], [0i64, 1i64, 2i64]] }
-- input { [1i64, 0i64] } error: ^size mismatch: 3 and 0 at .*empty_map_row_sizes\.arr:53:3$

entry from_data [n] (xs: [n]i64) : [n][]i64 =
  map (\i -> if xs[i] > 0 then iota 3 else iota 0) (iota n)

-- A size computed by what can fail (a division): without rows, a
-- division by zero gives 0, as in the trial; with rows, row 0's error.
-- ==
-- entry: divided
-- input { 0i64 6i64 0i64 } output { empty([0][0]i64) }
-- input { 0i64 6i64 2i64 } output { empty([0][3]i64) }
-- input { 1i64 6i64 2i64 } output { [[0i64, 1i64, 2i64]] }
-- input { 2i64 6i64 2i64 } error: ^size mismatch: 3 and 4 at .*empty_map_row_sizes\.arr:66:3$
-- input { 2i64 6i64 0i64 } error: ^division by zero at .*empty_map_row_sizes\.arr:66:20$

entry divided (n: i64) (k: i64) (d: i64) : [n][]i64 =
  map (\i -> iota (k / d + i)) (iota n)
