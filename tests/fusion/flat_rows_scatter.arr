-- A map making two rows per element (two inner maps), both flattened into
-- a scatter (Futhark's `WithAccs/issue2452`): `fusion::flat_rows` makes
-- the nest one map over the flattened matrix (a view), which fuses with
-- the scatter, so one loop writes each row's elements and neither row is
-- stored. Out-of-range indices (negative, past the destination) are
-- ignored. `swapped` has the tuple the other way and an inner map that
-- can fail (by zero): its first error is the nest's. `both_fail` has two
-- inner maps that can fail, whose first error could move, so it stays a
-- nest. `three` returns a third flattened row besides. `separate` takes
-- the indices and the values from two nests of one inner map each
-- (`reshape::flatten_nests` makes each flat). Of duplicates any
-- one value may be stored (`duplicates`, tagged `unspecified`).
-- ==
-- entry: main
-- input { [[0, 1, 2], [3, 4, 5]] [0, 0, 0, 0, 0, 0] }
-- output { [1, 2, 3, 4, 5, 6] }
-- input { [[5, 3, 1], [4, 2, 0]] [0, 0, 0, 0, 0, 0] }
-- output { [1, 2, 3, 4, 5, 6] }
-- input { [[2, -1, 9], [0, 6, 3], [7, 1, 8]] [7, 7, 7, 7, 7] }
-- output { [1, 2, 3, 4, 7] }
-- input { [[3]] [9, 9, 9, 9] } output { [9, 9, 9, 4] }
-- input { empty([0][3]i32) [5, 6] } output { [5, 6] }
-- input { empty([3][0]i32) [5, 6] } output { [5, 6] }
-- input { empty([0][0]i32) empty([0]i32) } output { empty([0]i32) }
-- random input { [40][25]i32 [1000]i32 }
-- ==
-- entry: swapped
-- input { [[1, 2, 3], [4, 5, 6]] [0, 0, 0, 0, 0, 0] }
-- output { [100, 50, 33, 25, 20, 16] }
-- input { [[3, 1, 9, 7, 5]] [0, 0, 0, 0] } output { [100, 0, 33, 0] }
-- input { [[1, 2], [0, 4]] [0, 0, 0, 0] } error: division by zero
-- input { empty([0][2]i32) [1] } output { [1] }
-- input { empty([2][0]i32) [1] } output { [1] }
-- ==
-- entry: both_fail
-- input { [[1, 2], [4, 5]] [0, 0, 0, 0] } output { [60, 30, 0, 15] }
-- input { [[9, 0]] [0, 0] } error: division by zero
-- ==
-- entry: three
-- input { [[0, 1, 2], [3, 4, 5]] [0, 0, 0, 0, 0, 0, 0] }
-- output { [0, 0, 2, 4, 6, 8, 10] [0, 1, 4, 9, 16, 25] }
-- input { [[8, -3]] [1, 2] } output { [1, 2] [64, 9] }
-- input { empty([0][4]i32) [1, 2] } output { [1, 2] empty([0]i32) }
-- ==
-- entry: separate
-- input { [[2, 0, 1], [5, 9, -4]] [0, 0, 0, 0, 0, 0] }
-- output { [1, 2, 3, 0, 0, 6] }
-- input { empty([0][5]i32) [4] } output { [4] }
-- ==
-- entry: duplicates
-- unspecified input { [[3, 15], [7, 21]] } output { true }
-- unspecified input { [[7, 3]] } output { true }

entry main [m] [n] (xs: [m][n]i32) (dest: *[]i32) : []i32 =
  let (vals, inds) = unzip (map (\row -> (map (+ 1) row, map i64.i32 row)) xs)
  in scatter dest (flatten inds) (flatten vals)

entry swapped [m] [n] (xs: [m][n]i32) (dest: *[]i32) : []i32 =
  let (inds, vals) =
    unzip (map (\row -> (map (\x -> i64.i32 x - 1) row, map (\x -> 100 / x) row)) xs)
  in scatter dest (flatten inds) (flatten vals)

entry both_fail [m] [n] (xs: [m][n]i32) (dest: *[]i32) : []i32 =
  let (vals, inds) =
    unzip (map (\row -> (map (\x -> 60 / x) row, map (\x -> assert (x < 9) (i64.i32 x - 1)) row)) xs)
  in scatter dest (flatten inds) (flatten vals)

entry three [m] [n] (xs: [m][n]i32) (dest: *[]i32) : ([]i32, []i32) =
  let (inds, vals, sq) =
    unzip3 (map (\row -> (map (\x -> i64.i32 x + 1) row, map (* 2) row, map (\x -> x * x) row)) xs)
  in (scatter dest (flatten inds) (flatten vals), flatten sq)

entry separate [m] [n] (xs: [m][n]i32) (dest: *[]i32) : []i32 =
  let inds = map (\row -> map i64.i32 row) xs
  let vals = map (\row -> map (+ 1) row) xs
  in scatter dest (flatten inds) (flatten vals)

entry duplicates [m] [n] (xs: [m][n]i32) : bool =
  let (vals, inds) = unzip (map (\row -> (map (i32.max (-100)) row, map (\x -> i64.i32 (x / 10)) row)) xs)
  let r = scatter (replicate 3 0) (flatten inds) (flatten vals)
  in (r[0] == 3 || r[0] == 7) && (r[1] == 0 || r[1] == 15) && (r[2] == 0 || r[2] == 21)
