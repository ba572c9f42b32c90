-- Several entry points in one file, one block naming several entries,
-- size parameters on entries, tuple results (printed as several values),
-- entries calling defs that other entries also use.

def scale (k: f32) (xs: []f32) : []f32 = map (* k) xs

-- ==
-- entry: double triple_minus_one
-- input { [1.0f32, 2.0f32] } output { [2.0f32, 4.0f32] }

-- One block applies to two entries (triple_minus_one agrees on this input).
entry double (xs: []f32) : []f32 = scale 2 xs

entry triple_minus_one (xs: []f32) : []f32 = map (\x -> x * 3 - x) xs

-- ==
-- entry: dims
-- input { [[1, 2, 3], [4, 5, 6]] } output { 2i64 3i64 6i64 }
-- input { empty([0][4]i32) } output { 0i64 4i64 0i64 }

-- Size parameters are i64 values in the body.
entry dims [n][m] (a: [n][m]i32) : (i64, i64, i64) = (n, m, n * m)

-- ==
-- entry: same_size
-- input { [1, 2] [3, 4] } output { [4, 6] }
-- input { [1, 2] [3] } error: argument 2

-- Arguments whose sizes disagree with the size parameters are bad input.
entry same_size [n] (xs: [n]i32) (ys: [n]i32) : [n]i32 = map2 (+) xs ys

-- ==
-- entry: many_results
-- input { 3 } output { 3 3i64 3.0f32 true [3, 3, 3] [[3]] }

entry many_results (x: i32) : (i32, i64, f32, bool, []i32, [][]i32) =
  (x, i64.i32 x, f32.i32 x, x > 0, replicate 3 x, [[x]])

-- ==
-- entry: nested_tuple_result
-- input { 1 } output { 1 2 3 }

-- A nested tuple result is printed as its flattened components.
entry nested_tuple_result (x: i32) : (i32, (i32, i32)) = (x, (x + 1, x + 2))

-- ==
-- entry: no_args_like
-- input { 0 } output { 42 }

entry no_args_like (_: i32) : i32 = 42

-- ==
-- entry: tuple_param
-- input { 1 2.5 } output { 3.5 }

-- A tuple parameter takes its components as separate values.
entry tuple_param (p: (i32, f64)) : f64 = f64.i32 p.0 + p.1

-- ==
-- entry: main
-- input { 7 } output { 49 }

entry main (x: i32) : i32 = x * x

-- ==
-- input { 8 } output { 64 }

-- ==
-- entry: fixed_sizes
-- input { [1.0, 2.0, 3.0] [[1.0, 2.0]] } output { 6.0 1i64 }
-- input { [1.0, 2.0] [[1.0, 2.0]] } error: ^argument 1: size mismatch: dimension 1 is 2, but the entry point's type says 3$
-- input { [1.0, 2.0, 3.0] [[1.0, 2.0, 3.0]] } error: ^argument 2: .*dimension 2 is 3
-- input { [1.0, 2.0, 3.0] empty([0][2]f64) } output { 6.0 0i64 }

-- Constant sizes in an entry's type are checked like size parameters: a
-- value of another size is bad input (exit 2), not an error of the program.
type vec3 = [3]f64

entry fixed_sizes (v: vec3) (m: [][2]f64) : (f64, i64) =
  (v[0] + v[1] + v[2], length m)
