-- Standard library: radix_sort num_bits get_bit xs (get_bit : i32 -> t ->
-- i32; stable; least significant bit first), stencil_1d r f xs (f gets the
-- 2r+1 neighbours of each element) and stencil_2d r f m (the (2r+1)x(2r+1)
-- window), with indices clamped at the borders.

-- ==
-- entry: sort_u32
-- input { [5u32, 3u32, 9u32, 0u32, 3u32, 4294967295u32] } output { [0u32, 3u32, 3u32, 5u32, 9u32, 4294967295u32] }
-- input { empty([0]u32) } output { empty([0]u32) }

entry sort_u32 (xs: []u32) : []u32 =
  radix_sort 32 (\b x -> i32.u32 ((x >> u32.i32 b) & 1)) xs

-- ==
-- entry: sort_stable
-- input { [2, 1, 2, 0, 1] [10, 11, 12, 13, 14] } output { [0, 1, 1, 2, 2] [13, 11, 14, 10, 12] }

-- Sorting (key, tag) pairs by the key's 2 low bits keeps equal keys in
-- their original order.
entry sort_stable (ks: []i32) (ts: []i32) : ([]i32, []i32) =
  unzip (radix_sort 2 (\b (k, _) -> (k >> b) & 1) (zip ks ts))

-- ==
-- entry: sort_few_bits
-- input { [7, 4, 13, 2] } output { [4, 2, 7, 13] }

-- Only the lowest num_bits bits take part: sorting by bit 0 alone puts the
-- even numbers first in their input order (4, 2), then the odd ones (7, 13).
entry sort_few_bits (xs: []i32) : []i32 =
  radix_sort 1 (\b x -> (x >> b) & 1) xs

-- ==
-- entry: st1
-- input { [1, 2, 3, 4] } output { [4, 6, 9, 11] }
-- input { [5] } output { [15] }

-- Window sums with radius 1, clamped: [1,1,2], [1,2,3], [2,3,4], [3,4,4].
entry st1 (xs: []i32) : []i32 = stencil_1d 1 (\w -> reduce (+) 0 w) xs

-- ==
-- entry: st1_r2
-- input { [1.0, 2.0, 3.0] } output { [1.0, 1.0, 1.0] [3.0, 3.0, 3.0] }

-- Radius 2: the window has 5 elements; the first and last of the window.
entry st1_r2 (xs: []f64) : ([]f64, []f64) =
  (stencil_1d 2 (\w -> w[0]) xs, stencil_1d 2 (\w -> w[4]) xs)

-- ==
-- entry: st2
-- input { [[1, 2], [3, 4]] } output { [[18, 21], [24, 27]] }

-- 3x3 window sums on a 2x2 matrix, clamped at every border: at (0,0) the
-- window rows are [1,1,2], [1,1,2], [3,3,4], summing to 18.
entry st2 (m: [][]i32) : [][]i32 =
  stencil_2d 1 (\w -> reduce (+) 0 (map (reduce (+) 0) w)) m

-- ==
-- entry: st2_centre
-- input { [[1, 2, 3], [4, 5, 6]] } output { [[1, 2, 3], [4, 5, 6]] [[1, 1, 2], [1, 1, 2]] }

-- The window's centre is the element itself; the top-left corner is the
-- clamped (i-1, j-1) neighbour.
entry st2_centre (m: [][]i32) : ([][]i32, [][]i32) =
  (stencil_2d 1 (\w -> w[1, 1]) m, stencil_2d 1 (\w -> w[0, 0]) m)
