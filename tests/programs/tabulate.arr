-- tabulate n f is map f (iota n); tabulate_2d and tabulate_3d.

-- ==
-- entry: tab1
-- input { 4i64 } output { [0i64, 1i64, 4i64, 9i64] }
-- input { 0i64 } output { empty([0]i64) }

entry tab1 (n: i64) : []i64 = tabulate n (\i -> i * i)

-- ==
-- entry: tab2
-- input { 2i64 3i64 } output { [[0, 1, 2], [10, 11, 12]] }
-- input { 2i64 0i64 } output { empty([2][0]i32) }

entry tab2 (n: i64) (m: i64) : [][]i32 = tabulate_2d n m (\i j -> i32.i64 (i * 10 + j))

-- ==
-- entry: tab3
-- input { 2i64 2i64 2i64 } output { [[[0, 1], [10, 11]], [[100, 101], [110, 111]]] }

entry tab3 (a: i64) (b: i64) (c: i64) : [][][]i64 =
  tabulate_3d a b c (\i j k -> i * 100 + j * 10 + k)

-- ==
-- entry: tab_gather
-- input { [5.0f32, 6.0f32, 7.0f32] } output { [7.0f32, 6.0f32, 5.0f32] }

entry tab_gather (xs: []f32) : []f32 =
  let n = length xs
  in tabulate n (\i -> xs[n - 1 - i])

-- ==
-- entry: tab_bool
-- input { 5i64 } output { [true, false, true, false, true] }

entry tab_bool (n: i64) : []bool = tabulate n (\i -> i % 2 == 0)
