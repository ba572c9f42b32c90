-- A flattened map nest whose inner map streams arrays from outside
-- (`tabulate_2d`, `map (\a -> map (f a) bs) as`; Futhark's
-- fuse-across-reshape4 and 5) is one map over the flat index
-- (`fusion::flat_index`), which the loop nests run as two loops again
-- (`loopy::unflat`). Edge sizes, a failing inner function (the first error
-- in row-major order), consumers that fuse with the flat map.
-- ==
-- entry: table
-- input { 3i64 7i64 }
-- output { [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.7320508075688772, 2.449489742783178, 3.0, 3.4641016151377544, 3.872983346207417, 4.242640687119285, 0.0, 2.449489742783178, 3.4641016151377544, 4.242640687119285, 4.898979485566356, 5.477225575051661, 6.0] }
-- input { 0i64 7i64 }
-- output { empty([0]f64) }
-- input { 5i64 0i64 }
-- output { empty([0]f64) }
-- input { 1i64 1i64 }
-- output { [0.0] }
-- input { 1i64 5i64 }
-- output { [0.0, 0.0, 0.0, 0.0, 0.0] }
-- input { 33i64 17i64 }
-- input { -1i64 3i64 }
-- error: .*
-- input { 3i64 -2i64 }
-- error: .*

-- ==
-- entry: outer
-- input { [1, 2, 3] [4, 5, 6] }
-- output { [2.8284271247461903, 3.1622776601683795, 3.4641016151377544, 3.4641016151377544, 3.872983346207417, 4.242640687119285, 4.0, 4.47213595499958, 4.898979485566356] }
-- input { empty([0]i32) [4, 5, 6] }
-- output { empty([0]f64) }
-- input { [4, 5, 6] empty([0]i32) }
-- output { empty([0]f64) }
-- input { [7] [9] }
-- output { [8.48528137423857] }
-- random input { [31]i32 [9]i32 }
-- random input { [1]i32 [63]i32 }

-- The flat array summed: the flat map and the reduction are one loop.
-- ==
-- entry: summed
-- input { 4i64 5i64 }
-- output { 60i64 }
-- input { 0i64 5i64 }
-- output { 0i64 }
-- input { 3i64 0i64 }
-- output { 0i64 }
-- input { 1i64 1i64 }
-- output { 0i64 }
-- input { 17i64 3i64 }

-- An inner function that fails: the first error in row-major order.
-- ==
-- entry: failing
-- input { [1, 2] [14, 3] } error: division by zero at .*flat_index_nest\.arr:87:34
-- input { [0, 2] [14, 6] } error: division by zero at .*flat_index_nest\.arr:87:34
-- input { [1, 2] [4, 5] } output { [10, 5, -5, -10] }
-- input { empty([0]i32) [3] } output { empty([0]i32) }

-- Statements before the inner map, a prefix that reads an outer scalar,
-- and two inputs of each map.
-- ==
-- entry: prefixed
-- input { [1, 2, 3] [1.5f32, 2.5f32, 3.5f32] [10, 20] [0.5f32, 0.25f32] 2i32 }
-- output { [13.75f32, 22.875f32, 17.25f32, 25.625f32, 20.75f32, 28.375f32] }
-- input { [1] [1f32] empty([0]i32) empty([0]f32) 2i32 }
-- output { empty([0]f32) }
-- random input { [13]i32 [13]f32 [7]i32 [7]f32 3i32 }
-- input { [1, 2] [1f32] [1] [1f32] 2i32 }
-- error: .*

entry table (n: i64) (m: i64) : []f64 =
  tabulate_2d n m (\i j -> i * 3 * j)
  |> flatten
  |> map (f64.sqrt <-< f64.i64)

entry outer (as: []i32) (bs: []i32) : []f64 =
  map (\a -> map (\b -> (a + 1) * b) bs) as
  |> flatten
  |> map (f64.sqrt <-< f64.i32)

entry summed (n: i64) (m: i64) : i64 =
  tabulate_2d n m (\i j -> i * j)
  |> flatten
  |> i64.sum

entry failing (as: []i32) (bs: []i32) : []i32 =
  flatten (map (\a -> map (\b -> (a * 0 + 10) / (b - 3 * a)) bs) as)

entry prefixed [n] [m] (as: [n]i32) (xs: [n]f32) (bs: [m]i32) (ys: [m]f32) (c: i32) : []f32 =
  flatten (map2 (\a x ->
                   let s = f32.i32 (a * c)
                   let t = x + s
                   in map2 (\b y -> t * y + f32.i32 b + s) bs ys) as xs)

-- A flat loop written by the user, whose sizes nothing proves at least
-- zero: never re-nested (`loopy::unflat` needs `flat_index`'s assertion).
-- ==
-- entry: user
-- input { -2i64 -3i64 }
-- output { [0i64, -3i64, -2i64, -1i64, -4i64, -3i64] }
-- input { 2i64 3i64 }
-- output { [0i64, 1i64, 2i64, 1i64, 2i64, 3i64] }
-- input { 0i64 3i64 }
-- output { empty([0]i64) }

entry user (n: i64) (m: i64) : []i64 =
  tabulate (n * m) (\k -> k / m + k % m)
