-- A map nest over the transposed rows of an unflattened map's result
-- (Futhark's fuse-across-reshape-transpose): the maps move past the
-- `unflatten` (`fusion::reshape::maps_past_unflatten`), the transposition
-- onto the nest's input (`permute`), and the two nests are one loop nest.
-- Edge sizes, a size that does not fit, and maps that cannot move.
-- ==
-- entry: fixed
-- input { }
-- output { [[2, 8, 14], [4, 10, 16], [6, 12, 18]] }

-- ==
-- entry: sized
-- input { 3i64 4i64 }
-- output { [[3, 15, 27], [6, 18, 30], [9, 21, 33], [12, 24, 36]] }
-- input { 0i64 4i64 }
-- output { empty([4][0]i32) }
-- input { 4i64 0i64 }
-- output { empty([0][4]i32) }
-- input { 1i64 1i64 }
-- output { [[3]] }
-- input { 1i64 5i64 }
-- output { [[3], [6], [9], [12], [15]] }
-- input { 7i64 3i64 }
-- output { [[3, 12, 21, 30, 39, 48, 57], [6, 15, 24, 33, 42, 51, 60], [9, 18, 27, 36, 45, 54, 63]] }

-- ==
-- entry: given
-- input { 2i64 3i64 [1f32, 2f32, 3f32, 4f32, 5f32, 6f32] }
-- output { [[3.5f32, 6.5f32], [4.5f32, 7.5f32], [5.5f32, 8.5f32]] }
-- input { 3i64 2i64 [1f32, 2f32, 3f32, 4f32, 5f32, 6f32] }
-- output { [[3.5f32, 5.5f32, 7.5f32], [4.5f32, 6.5f32, 8.5f32]] }
-- input { 2i64 2i64 [1f32, 2f32, 3f32, 4f32, 5f32, 6f32] }
-- error: .*
-- input { 0i64 3i64 empty([0]f32) }
-- output { empty([3][0]f32) }
-- random input { 5i64 9i64 [45]f32 }

-- The map's result is read elsewhere too: it stays.
-- ==
-- entry: shared
-- input { 2i64 2i64 [1, 2, 3, 4] }
-- output { [[4, 8], [6, 10]] 14 }
-- input { 0i64 2i64 empty([0]i32) }
-- output { empty([2][0]i32) 0 }

entry fixed : [][]i32 =
  let a = map (+ 1) (map i32.i64 (iota (3 * 3)))
  let b = unflatten a
  let c = transpose b
  in map (\(row: []i32) -> map (* 2) row) c

entry sized (n: i64) (m: i64) : [][]i32 =
  let a = map (\x -> x * 3 + 3) (map i32.i64 (iota (n * m)))
  let c = transpose (unflatten a : [n][m]i32)
  in map (\row -> map (\v -> v) row) c

entry given (n: i64) (m: i64) (xs: []f32) : [][]f32 =
  let a = map (\x -> x * 2 + 1) xs
  let c = transpose (unflatten (a :> [n * m]f32))
  in map (\row -> map (\v -> v / 2 + 2) row) c

entry shared (n: i64) (m: i64) (xs: []i32) : ([][]i32, i32) =
  let a = map (\x -> x + 1) xs
  let c = transpose (unflatten (a :> [n * m]i32))
  in (map (\row -> map (* 2) row) c, i32.sum a)
