-- `==` and `!=` on arrays, as Futhark compiles them (deprecated there, its
-- tests eqarrays0/1): arrays of different shapes are unequal, never an
-- error; otherwise every element is compared with the element type's `==`
-- (so an array holding NaN is not equal to itself). Arrays of tuples and
-- records compare every component.
-- ==
-- entry: eq_i32
-- input { [1, 2, 3] [1, 2, 3] }
-- output { true false }
-- input { [1, 2, 3] [1, 2, 4] }
-- output { false true }
-- input { [1, 2] [1, 2, 3] }
-- output { false true }
-- input { [1, 2, 3] [1, 2] }
-- output { false true }
-- input { empty([0]i32) empty([0]i32) }
-- output { true false }
-- input { empty([0]i32) [1] }
-- output { false true }
-- input { [1] empty([0]i32) }
-- output { false true }
-- random input { [1000]i32 [1000]i32 }
-- output { false true }

-- ==
-- entry: eq_self
-- input { [5, -1, 7] }
-- output { true }
-- random input { [10000]i32 }
-- output { true }

-- ==
-- entry: eq_2d
-- input { [[1, 2], [3, 4]] [[1, 2], [3, 4]] }
-- output { true }
-- input { [[1, 2], [3, 4]] [[1, 2], [3, 5]] }
-- output { false }
-- input { [[1, 2], [3, 4]] [[1, 2, 3], [4, 5, 6]] }
-- output { false }
-- input { [[1, 2, 3, 4]] [[1, 2], [3, 4]] }
-- output { false }
-- input { empty([0][2]i32) empty([0][3]i32) }
-- output { false }
-- input { empty([0][2]i32) empty([0][2]i32) }
-- output { true }
-- input { empty([2][0]i32) empty([2][0]i32) }
-- output { true }

-- ==
-- entry: eq_f32
-- input { [1f32, 2f32] [1f32, 2f32] }
-- output { true false }
-- input { [1f32, f32.nan] [1f32, f32.nan] }
-- output { false true }
-- input { [0f32, -0f32] [-0f32, 0f32] }
-- output { true false }
-- input { [f32.inf] [f32.inf] }
-- output { true false }

-- ==
-- entry: nan_self
-- input { [1f64, f64.nan] }
-- output { false }
-- input { [1f64, 2f64] }
-- output { true }

-- ==
-- entry: eq_pairs
-- input { [1, 2] [true, false] [1, 2] [true, false] }
-- output { true }
-- input { [1, 2] [true, false] [1, 2] [true, true] }
-- output { false }
-- input { [1, 2] [true, false] [1, 3] [true, false] }
-- output { false }
-- input { [1, 2] [true, false] [1] [true] }
-- output { false }

-- ==
-- entry: eq_records
-- input { [1f64, 2f64] [3i64, 4i64] }
-- output { true false }

-- ==
-- entry: rows_equal
-- input { [[1, 2], [3, 4], [1, 2]] [1, 2] }
-- output { [true, false, true] }
-- input { [[1, 2], [3, 4]] [1, 2, 3] }
-- output { [false, false] }

entry eq_i32 (xs: []i32) (ys: []i32) : (bool, bool) = (xs == ys, xs != ys)

entry eq_self (xs: []i32) : bool = xs == map (\x -> x) xs

entry eq_2d (xss: [][]i32) (yss: [][]i32) : bool = xss == yss

entry eq_f32 (xs: []f32) (ys: []f32) : (bool, bool) = (xs == ys, xs != ys)

entry nan_self (xs: []f64) : bool = xs == xs

entry eq_pairs (xs: []i32) (bs: []bool) (cs: []i32) (ds: []bool) : bool =
  zip xs bs == zip cs ds

entry eq_records (xs: []f64) (ns: []i64) : (bool, bool) =
  let rs = map2 (\x n -> {x, n}) xs ns
  let shifted = map (\r -> r with n = r.n + 1) rs
  in (rs == map (\r -> r) rs, rs == shifted)

entry rows_equal (xss: [][]i32) (ys: []i32) : []bool = map (\xs -> xs == ys) xss
