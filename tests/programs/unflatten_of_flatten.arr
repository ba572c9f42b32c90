-- Futhark's `unflatten (flatten_3d ys)`, `unflatten_3d (flatten_3d ys)` and
-- `unflatten (flatten ys)`: size unification gives the factors of the
-- flattened array's size, so the results are `flatten ys` and `ys`
-- (futhark-benchmarks' misc/life).

-- ==
-- input { [[1, 2, 3], [4, 5, 6]] 2i64 }
-- output { [[1, 2, 3, 1, 2, 3], [4, 5, 6, 4, 5, 6], [1, 2, 3, 1, 2, 3], [4, 5, 6, 4, 5, 6]]
--          [[[1, 2, 3], [4, 5, 6]], [[1, 2, 3], [4, 5, 6]]]
--          [[1, 2, 3], [4, 5, 6]] }
-- input { empty([0][3]i32) 2i64 }
-- output { empty([0][6]i32) empty([2][0][3]i32) empty([0][3]i32) }
-- input { [[1, 2, 3], [4, 5, 6]] 0i64 }
-- output { empty([0][0]i32) empty([0][2][3]i32) [[1, 2, 3], [4, 5, 6]] }
def main [n] [m] (xs: [n][m]i32) (k: i64) =
  let tiled = unflatten (flatten_3d (replicate k (map (\row -> flatten (replicate k row)) xs)))
  let stacked = unflatten_3d (flatten_3d (replicate k xs))
  let same = unflatten (flatten (map (map (+ 0)) xs))
  in (tiled, stacked, same)
