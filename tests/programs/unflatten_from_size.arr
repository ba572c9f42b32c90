-- Futhark's newer `unflatten xs`: the sizes are read off the argument's
-- size where the program writes it as a product `n * m`, as Futhark does
-- (rodinia/nw, hotspot, lud and parboil/lbm in futhark-benchmarks).

def rows_of (n: i64) (m: i64) (a: [n * m]i32) = map i32.sum (unflatten a)

-- ==
-- input { 2i64 3i64 [1, 2, 3, 4, 5, 6] }
-- output { [6, 15] [[0, 0, 0], [0, 0, 0]] [[7, 8], [9, 10], [11, 12]] [[0i64, 1i64, 2i64], [3i64, 4i64, 5i64]] [3i64, 12i64] }
-- input { 2i64 2i64 [1, 2, 3, 4, 5, 6] }
-- error:
entry main (n: i64) (m: i64) (xs: []i32) =
  let a = rows_of n m (sized (n * m) xs)
  let b = replicate (n * m) 0i32 |> unflatten
  let c = unflatten (map (+ 6) xs :> [m * n]i32)
  let d = unflatten (iota (n * m))
  let e = map i64.sum (unflatten (map (* 1) (iota (n * m))))
  in (a, b, c, d, e)
