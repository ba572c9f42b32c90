-- transpose swaps the two outer dimensions; flatten and unflatten
-- (unflatten's size is checked at run time).

-- ==
-- entry: transpose2
-- input { [[1, 2, 3], [4, 5, 6]] } output { [[1, 4], [2, 5], [3, 6]] }
-- input { empty([0][3]i32) } output { empty([3][0]i32) }
-- input { [[7]] } output { [[7]] }

entry transpose2 (m: [][]i32) : [][]i32 = transpose m

-- ==
-- entry: transpose3
-- input { [[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10], [11, 12]]] }
-- output { [[[1, 2], [7, 8]], [[3, 4], [9, 10]], [[5, 6], [11, 12]]] }

-- On a 3-D array only the two outer dimensions swap: [2][3][2] -> [3][2][2].
entry transpose3 (t: [][][]i32) : [][][]i32 = transpose t

-- ==
-- entry: twice
-- input { [[1.5, 2.5], [3.5, 4.5]] } output { [[1.5, 2.5], [3.5, 4.5]] [5.0, 7.0] }

-- transpose (transpose m) is m; column sums via transpose.
entry twice (m: [][]f64) : ([][]f64, []f64) =
  (transpose (transpose m), map (reduce (+) 0) (transpose m) |> map (\x -> x + 0))

-- ==
-- entry: flatten2
-- input { [[1, 2], [3, 4], [5, 6]] } output { [1, 2, 3, 4, 5, 6] }
-- input { empty([2][0]i32) } output { empty([0]i32) }

entry flatten2 (m: [][]i32) : []i32 = flatten m

-- ==
-- entry: flatten3
-- input { [[[1, 2], [3, 4]], [[5, 6], [7, 8]]] } output { [[1, 2], [3, 4], [5, 6], [7, 8]] }

-- flatten on a 3-D array merges the two outer dimensions.
entry flatten3 (t: [][][]i32) : [][]i32 = flatten t

-- ==
-- entry: unflatten2
-- input { 2i64 3i64 [1, 2, 3, 4, 5, 6] } output { [[1, 2, 3], [4, 5, 6]] }
-- input { 3i64 2i64 [1, 2, 3, 4, 5, 6] } output { [[1, 2], [3, 4], [5, 6]] }
-- input { 0i64 5i64 empty([0]i32) } output { empty([0][5]i32) }
-- input { 4i64 2i64 [1, 2, 3, 4, 5, 6] } error: size mismatch
-- input { 2i64 2i64 [1, 2, 3, 4, 5, 6] } error: size mismatch

entry unflatten2 (n: i64) (m: i64) (xs: []i32) : [][]i32 = unflatten n m xs

-- ==
-- entry: roundtrip
-- input { [[true, false, true], [false, false, true]] } output { [[true, false, true], [false, false, true]] }

entry roundtrip [n][m] (b: [n][m]bool) : [n][m]bool = unflatten n m (flatten b)

-- ==
-- entry: transpose_flatten
-- input { [[1, 2, 3], [4, 5, 6]] } output { [1, 4, 2, 5, 3, 6] }

-- Column-major order.
entry transpose_flatten (m: [][]i32) : []i32 = flatten (transpose m)
