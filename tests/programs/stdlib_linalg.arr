-- Standard library: dot, matmul, outer (products, [n][m]).

-- ==
-- entry: dot_f32
-- input { [1.0f32, 2.0f32, 3.0f32] [4.0f32, 5.0f32, 6.0f32] } output { 32.0f32 }
-- input { empty([0]f32) empty([0]f32) } output { 0.0f32 }
-- input { [1.0f32] [1.0f32, 2.0f32] } error: size mismatch

entry dot_f32 (xs: []f32) (ys: []f32) : f32 = dot xs ys

-- ==
-- entry: dot_i64
-- input { [1i64, -2i64] [3i64, 4i64] } output { -5i64 }

entry dot_i64 (xs: []i64) (ys: []i64) : i64 = dot xs ys

-- ==
-- entry: mm
-- input { [[1, 2], [3, 4], [5, 6]] [[1, 0, 2], [0, 1, 3]] }
-- output { [[1, 2, 8], [3, 4, 18], [5, 6, 28]] }
-- input { [[1, 2]] [[3], [4]] } output { [[11]] }

entry mm (a: [][]i32) (b: [][]i32) : [][]i32 = matmul a b

-- ==
-- entry: mm_f64
-- input { [[0.5, 1.5], [2.0, -1.0]] } output { [[3.25, -0.75], [-1.0, 4.0]] }

-- A matrix squared.
entry mm_f64 (a: [][]f64) : [][]f64 = matmul a a

-- ==
-- entry: mm_mismatch
-- input { [[1, 2]] [[1, 2]] } error: size mismatch

entry mm_mismatch (a: [][]i32) (b: [][]i32) : [][]i32 = matmul a b

-- ==
-- entry: outer_i32
-- input { [1, 2] [3, 4, 5] } output { [[3, 4, 5], [6, 8, 10]] }
-- input { empty([0]i32) [3, 4] } output { empty([0][2]i32) }

entry outer_i32 (xs: []i32) (ys: []i32) : [][]i32 = outer xs ys

-- ==
-- entry: outer_f32
-- input { [0.5f32] [2.0f32, -4.0f32] } output { [[1.0f32, -2.0f32]] }

entry outer_f32 (xs: []f32) (ys: []f32) : [][]f32 = outer xs ys
