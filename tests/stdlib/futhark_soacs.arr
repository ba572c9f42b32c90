-- Futhark's prelude functions beyond the contract's list: each against
-- results worked out by hand (and checked with Futhark's documentation).

-- ==
-- entry: small
-- input { [1, 2, 3] [4, 5, 6] }
-- output { [2, 3, 4] [1, 2, 3] [4, 5, 6] false true [1, 2, 3] [3, 2, 1] }
entry small (xs: []i32) (ys: []i32) =
  let (as, bs) = unzip2 (zip2 xs ys)
  in (map1 (+ 1) xs, as, bs, null xs, null (filter (> 5) xs), manifest xs, sized 3 (reverse xs))

-- ==
-- entry: sized_wrong
-- input { [1, 2, 3] } error: size
entry sized_wrong (xs: []i32) : []i32 = sized 2 xs

-- ==
-- entry: shapes
-- input { [[[[1, 2], [3, 4]]], [[[5, 6], [7, 8]]]] }
-- output { [1, 2, 3, 4, 5, 6, 7, 8] [[[[1, 2]], [[3, 4]]], [[[5, 6]], [[7, 8]]]] }
entry shapes (xs: [][][][]i32) =
  let flat = flatten_4d xs
  in (flat, unflatten_4d 2 2 1 2 flat)

-- ==
-- entry: spreads
-- input { [2, 0, 7, -1] [10, 20, 30, 40] }
-- output { [20, 9, 10, 9]
--          [[0, 10], [0, 20]]
--          [[[0, 0], [0, 0]], [[0, 30], [0, 0]]] }
entry spreads (is: []i64) (vs: []i32) =
  let pairs = [(0, 1), (1, 1), (5, 0), (-1, 0)]
  let triples = [(1, 0, 1), (2, 0, 0), (0, 0, 2), (1, 1, -1)]
  in (spread 4 9 is vs,
      scatter_2d (replicate 2 (replicate 2 0)) pairs vs,
      scatter_3d (replicate 2 (replicate 2 (replicate 2 0))) triples [30, 1, 2, 3])

-- ==
-- entry: bins
-- input { [1, 2, 3, 4, 5] }
-- output { [[3, 8], [0, 100]] [[[3, 0]], [[0, 7]]] }
entry bins (vs: []i32) =
  let pairs = [(0, 1), (0, 1), (0, 0), (1, 5), (0, 1)]
  let triples = [(0, 0, 0), (1, 0, 1), (0, 0, 0), (1, 0, 1), (9, 0, 0)]
  in (reduce_by_index_2d [[0, 0], [0, 100]] (+) 0 pairs vs,
      reduce_by_index_3d (replicate 2 (replicate 1 (replicate 2 0))) (+) 0 triples [1, 3, 2, 4, 8])

-- ==
-- entry: partitions
-- input { [5, 12, 3, 8, 20, 1, 6] }
-- output { [12, 8, 20, 6] [5, 3] [1] }
entry partitions (xs: []i32) = partition2 (\x -> x % 2 == 0) (\x -> x > 2) xs

-- ==
-- entry: flatmaps
-- input { [2i64, 0i64, 3i64, 1i64] }
-- output { [2i64, 0i64, 3i64, 1i64]
--          [true, false, true, false, false, true]
--          [0i64, 2i64, 2i64, 5i64]
--          [0i64, 1i64, 20i64, 21i64, 22i64, 30i64]
--          [2i64, 0i64, 6i64, 0i64]
--          [0i64, 1i64, 20i64, 21i64, 22i64, 30i64] }
-- input { empty([0]i64) }
-- output { empty([0]i64) empty([0]bool) empty([0]i64) empty([0]i64) empty([0]i64) empty([0]i64) }
entry flatmaps [n] (ks: [n]i64) =
  let elems k = map (\i -> 10 * indexof k + i) (iota k)
  let (s, f, o, d, c) = flatmap (\k -> (elems k, k * k - k)) ks
  let (_, _, _, d') = flatmap' elems ks
  in (s, f, o, d, c, d')

def indexof (k: i64) : i64 = if k == 3 then 2 else if k == 1 then 3 else 0

-- ==
-- entry: rest
-- input { 7 2.9f32 -3.5 } output { 7.0f32 2 7.0 -3 [7, 7] true }
entry rest (x: i32) (y: f32) (z: f64) =
  (r32 x, t32 y, r64 x, t64 z, trace (opaque [x, break x]), not false)

-- ==
-- entry: float_bits
-- input { 2.0f32 1.0 1.5f16 } output { -2.0f32 1.0000000000000002 1 8 -1.5f16 }
entry float_bits (x: f32) (y: f64) (h: f16) =
  (f32.set_bit 31 x 1, f64.set_bit 0 y 1, f32.get_bit 31 (f32.set_bit 31 x 1), i32.set_bit 3 0 1,
   f16.set_bit 15 h 1)
