-- argmax and argmin: the first index on ties, -1 for an empty array; an
-- element equal to the reduction's neutral value (the type's lowest or
-- highest) still counts, and a map feeding them fuses into the reduction.
-- ==
-- entry: ints
-- input { [3, 9, 1, 9, 1] } output { 1i64 2i64 }
-- input { [5] } output { 0i64 0i64 }
-- input { [4, 4, 4] } output { 0i64 0i64 }
-- input { empty([0]i32) } output { -1i64 -1i64 }
-- input { [-2147483648, -2147483648] } output { 0i64 0i64 }
-- input { [2147483647, 2147483647, -2147483648] } output { 0i64 2i64 }

-- ==
-- entry: floats
-- input { [2.0f32, -1.0f32, 2.0f32, -1.0f32] } output { 0i64 1i64 }
-- input { [-3.5f32, 7.25f32, 0.0f32] } output { 1i64 0i64 }
-- input { [f32.inf, f32.inf] } output { 0i64 0i64 }
-- input { [-f32.inf, -f32.inf, 1.0f32] } output { 2i64 0i64 }

-- ==
-- entry: nearest
-- input { [0.0f32, 4.0f32, 9.0f32] [1.0f32, 5.0f32, 8.0f32] }
-- output { [0i64, 1i64, 2i64] }
-- input { [1.0f32] empty([0]f32) } output { [-1i64] }
-- input { [3.0f32, 3.0f32] [2.0f32, 4.0f32] } output { [0i64, 0i64] }

entry ints (xs: []i32) = (argmax xs, argmin xs)

entry floats (xs: []f32) = (argmax xs, argmin xs)

-- The nearest centre of each point: the inner map fuses into argmin.
entry nearest [n] [k] (xs: [n]f32) (cs: [k]f32) : [n]i64 =
  map (\x -> argmin (map (\c -> (x - c) * (x - c)) cs)) xs
