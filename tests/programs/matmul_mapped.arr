-- Matrix products whose operands are made by cheap element-wise maps just
-- before them. The fusion graph keeps a map that makes a product's left
-- operand apart from the product (`fusion::rows::product_operand`), and a
-- transposed map read whole by the product stays a map then a transpose
-- (`fusion::permute`), so that the blocked kernels (`loopy::block`,
-- `loopy::outer`) read both operands from memory. Sizes with remainders of
-- row blocks and panels, products of one step (k = 1), too small for a
-- block, and empty.

-- ==
-- entry: left_f32
-- input { [[1.0f32, 2.0f32], [3.0f32, 4.0f32]] [[5.0f32, 6.0f32], [7.0f32, 8.0f32]] }
-- output { [[50.0f32, 58.0f32], [98.0f32, 114.0f32]] }

-- ==
-- entry: left_f32 right_f32 both_f32
-- input { empty([0][3]f32) [[1.0f32], [2.0f32], [3.0f32]] } output { empty([0][1]f32) }
-- input { [[1.0f32, 2.0f32]] empty([2][0]f32) } output { empty([1][0]f32) }
-- random input { [37][29]f32 [29][70]f32 }
-- random input { [16][1]f32 [1][131]f32 }
-- random input { [5][64]f32 [64][3]f32 }
-- random input { [131][67]f32 [67][129]f32 }

-- ==
-- entry: left_f64 right_f64 both_f64
-- random input { [37][29]f64 [29][70]f64 }
-- random input { [16][1]f64 [1][131]f64 }
-- random input { [7][3]f64 [3][33]f64 }
-- input { empty([0][3]f64) [[1.0f64], [2.0f64], [3.0f64]] } output { empty([0][1]f64) }

entry left_f32 [n] [k] [m] (a: [n][k]f32) (b: [k][m]f32) : [n][m]f32 =
  let a' = map (map (\x -> x * 2 + 1)) a
  in map (\r -> map (\c -> f32.sum (map2 (*) r c)) (transpose b)) a'

entry right_f32 [n] [k] [m] (a: [n][k]f32) (b: [k][m]f32) : [n][m]f32 =
  let b' = map (map (\x -> x * 2 + 1)) b
  in map (\r -> map (\c -> f32.sum (map2 (*) r c)) (transpose b')) a

entry both_f32 [n] [k] [m] (a: [n][k]f32) (b: [k][m]f32) : [n][m]f32 =
  let a' = map (map (\x -> x * 2 + 1)) a
  let b' = map (map (\x -> x - 0.5)) b
  in map (\r -> map (\c -> f32.sum (map2 (*) r c)) (transpose b')) a'

entry left_f64 [n] [k] [m] (a: [n][k]f64) (b: [k][m]f64) : [n][m]f64 =
  let a' = map (map (\x -> x * 2 + 1)) a
  in map (\r -> map (\c -> f64.sum (map2 (*) r c)) (transpose b)) a'

entry right_f64 [n] [k] [m] (a: [n][k]f64) (b: [k][m]f64) : [n][m]f64 =
  let b' = map (map (\x -> x * 2 + 1)) b
  in map (\r -> map (\c -> f64.sum (map2 (*) r c)) (transpose b')) a

entry both_f64 [n] [k] [m] (a: [n][k]f64) (b: [k][m]f64) : [n][m]f64 =
  let a' = map (map (\x -> x * 2 + 1)) a
  let b' = map (map (\x -> x - 0.5)) b
  in map (\r -> map (\c -> f64.sum (map2 (*) r c)) (transpose b')) a'
