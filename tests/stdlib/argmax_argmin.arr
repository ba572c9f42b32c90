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

-- Both element widths of each kind; mixed signs, ties, the type's extremes
-- and empty arrays.
-- ==
-- entry: wide
-- input { [-3i64, 7i64, -8i64, 7i64, -8i64] [-0.5, 2.5, -2.5, 2.5, -2.5] }
-- output { 1i64 2i64 1i64 2i64 }
-- input { [-9223372036854775808i64, -9223372036854775808i64] [-f64.inf, -f64.inf] }
-- output { 0i64 0i64 0i64 0i64 }
-- input { [9223372036854775807i64, 1i64] [f64.inf, 1.0] }
-- output { 0i64 1i64 0i64 1i64 }
-- input { empty([0]i64) empty([0]f64) } output { -1i64 -1i64 -1i64 -1i64 }

entry wide (xs: []i64) (ys: []f64) = (argmax xs, argmin xs, argmax ys, argmin ys)

-- NaN: element 0 wins when it is NaN (a sequential run keeps it), any
-- other NaN is skipped; -0.0 and 0.0 are equal (the first wins).
-- ==
-- entry: nans
-- input { [f64.nan, f64.nan, f64.nan] [f32.nan, f32.nan] } output { 0i64 0i64 0i64 0i64 }
-- input { [f64.nan, 1.0, 5.0] [f32.nan, -1.0f32] } output { 0i64 0i64 0i64 0i64 }
-- input { [1.0, f64.nan, 5.0, f64.nan, -2.0] [2.0f32, f32.nan, -3.0f32] }
-- output { 2i64 4i64 0i64 2i64 }
-- input { [-0.0, 0.0] [0.0f32, -0.0f32] } output { 0i64 0i64 0i64 0i64 }

entry nans (xs: []f64) (ys: []f32) = (argmax xs, argmin xs, argmax ys, argmin ys)

-- Arrays of many chunks: NaNs at chunk and lane starts (element 0 not a
-- NaN) are skipped, not kept with the rest of their chunk lost; a NaN at
-- element 0 wins; ties across chunks go to the first. The stdlib's earlier
-- operator (`i < 0 || b > a`) gave 7588, 91490 or 29498 for the first by
-- the number of threads.
-- ==
-- entry: nan_chunks
-- input { 100000i64 } output { 29498i64 71449i64 29498i64 71449i64 }
-- input { 4097i64 } output { 3206i64 693i64 3206i64 693i64 }
-- input { 0i64 } output { -1i64 -1i64 -1i64 -1i64 }
entry nan_chunks (n: i64) : (i64, i64, i64, i64) =
  let xs = map (\i -> if (i * 31) % 7 != 0 then f64.nan
                      else f64.i64 ((i * 7919 + 12345) % 100003)) (iota n)
  let ys = map f32.f64 xs
  in (argmax xs, argmin xs, argmax ys, argmin ys)

-- ==
-- entry: nan_first
-- input { 100000i64 } output { 0i64 0i64 0i64 0i64 }
entry nan_first (n: i64) : (i64, i64, i64, i64) =
  let xs = map (\i -> if i == 0 || i % 5 == 3 then f64.nan else f64.i64 ((i * 7919) % 100003)) (iota n)
  let ys = map f32.f64 xs
  in (argmax xs, argmin xs, argmax ys, argmin ys)

-- ==
-- entry: chunk_ties
-- input { 100000i64 } output { 821i64 500i64 821i64 500i64 }
entry chunk_ties (n: i64) : (i64, i64, i64, i64) =
  let xs = map (\i -> (i * 7919 + 500) % 1000 - 500) (iota n)
  let ys = map i32.i64 xs
  in (argmax xs, argmin xs, argmax ys, argmin ys)
