-- Transposing map nests, which `loopy::tile` runs in 16 x 16 tiles: sizes
-- that are and are not multiples of 16, one-row and one-column matrices,
-- empty ones, element types of 1, 4 and 8 bytes, a transpose written as
-- nested maps over indices, and transposes nested in a map (tiled inside
-- the outer nest). The random cases compare with the interpreter.

-- ==
-- entry: t_f32
-- input { [[1.0f32, 2.0f32, 3.0f32], [4.0f32, 5.0f32, 6.0f32]] }
-- output { [[1.0f32, 4.0f32], [2.0f32, 5.0f32], [3.0f32, 6.0f32]] }
-- input { empty([0][5]f32) } output { empty([5][0]f32) }
-- input { empty([4][0]f32) } output { empty([0][4]f32) }
-- random input { [16][16]f32 }
-- random input { [37][29]f32 }
-- random input { [1][40]f32 }
-- random input { [40][1]f32 }
-- random input { [33][17]f32 }
-- random input { [130][257]f32 }

entry t_f32 (m: [][]f32) : [][]f32 = transpose m

-- ==
-- entry: t_f64
-- random input { [70][33]f64 }
-- random input { [15][17]f64 }

entry t_f64 (m: [][]f64) : [][]f64 = transpose m

-- ==
-- entry: t_u8
-- random input { [48][31]u8 }
-- random input { [5][200]u8 }

entry t_u8 (m: [][]u8) : [][]u8 = transpose m

-- ==
-- entry: by_index
-- input { [[1i64, 2i64], [3i64, 4i64], [5i64, 6i64]] }
-- output { [[3i64, 8i64, 13i64], [7i64, 12i64, 17i64]] }
-- random input { [45][18]i64 }
-- random input { [17][16]i64 }

-- The transpose written out: element [i][j] of the result is m[j][i].
entry by_index [r] [c] (m: [r][c]i64) : [c][r]i64 =
  map (\i -> map (\j -> m[j][i] * 3 + i - j) (iota r)) (iota c)

-- ==
-- entry: batched
-- input { [[[1, 2], [3, 4]], [[5, 6], [7, 8]]] }
-- output { [[[1, 3], [2, 4]], [[5, 7], [6, 8]]] }
-- random input { [3][20][35]i32 }
-- random input { [2][1][19]i32 }

entry batched (xs: [][][]i32) : [][][]i32 = map transpose xs

-- ==
-- entry: then_map
-- random input { [50][21]i32 }

entry then_map (m: [][]i32) : [][]i32 =
  map (map (\x -> x * 2 + 1)) (transpose m)
