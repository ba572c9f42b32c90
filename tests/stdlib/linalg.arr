-- dot, matmul and outer.
-- ==
-- entry: dots
-- input { [1, 2, 3] [4, 5, 6] } output { 32 }
-- input { empty([0]i32) empty([0]i32) } output { 0 }
-- input { [1, 2] [3] } error: size

-- ==
-- entry: matmuls
-- input { [[1, 2], [3, 4]] [[5, 6], [7, 8]] } output { [[19, 22], [43, 50]] }
-- input { [[1, 2, 3]] [[1], [2], [3]] } output { [[14]] }
-- input { [[1, 2]] [[1, 2]] } error: size

-- ==
-- entry: outers
-- input { [1.0f32, 2.0f32] [3.0f32, 4.0f32, 5.0f32] } output { [[3.0f32, 4.0f32, 5.0f32], [6.0f32, 8.0f32, 10.0f32]] }

entry dots (xs: []i32) (ys: []i32) = dot xs ys

entry matmuls (a: [][]i32) (b: [][]i32) = matmul a b

entry outers (xs: []f32) (ys: []f32) = outer xs ys
