-- A scatter over concatenations is one scatter per part
-- (`simplify::scatter_split`, Futhark's `concat-scatter-fusion`): in
-- `split` the two concatenations go, and the second part's scatter
-- continues the first's (out-of-range indices are ignored); as parts of
-- one scatter the two run in the map's one loop, element by element. In
-- `three` the three parts have one size: three scatters, each continuing
-- the one before. In `unpaired` the parts' sizes do not pair up (`n`
-- indices with `m` values first), so the scatter stays whole. Of
-- duplicates any one value may be stored: `duplicates` writes index 0
-- from both parts and accepts either (tagged `unspecified`, so the
-- checking mode does not reject it); `in_order` is two scatters of the
-- program, whose second's writes land after all of the first's, and
-- which are never fused.
-- nodes: scatter=10 concat=2
-- ==
-- entry: split
-- input { 4i64 [0i32, 2i32] } output { [1i32, 5i32, 3i32, 9i32] }
-- input { 3i64 [-1i32, 9i32, 2i32] } output { [3i32, 0i32, 3i32] }
-- input { 2i64 empty([0]i32) } output { [0i32, 0i32] }
-- ==
-- entry: three
-- input { 7i64 [0i32, 3i32] } output { [10i32, 20i32, 30i32, 13i32, 23i32, 33i32, 0i32] }
-- input { 3i64 empty([0]i32) } output { [0i32, 0i32, 0i32] }
-- ==
-- entry: unpaired
-- input { 4i64 [0i64] [1i64, 3i64] [7i32, 8i32] [9i32] }
-- output { [7i32, 8i32, 0i32, 9i32] }
-- input { 3i64 [2i64, 1i64] [0i64] [5i32] [6i32, 4i32] }
-- output { [4i32, 6i32, 5i32] }
-- ==
-- entry: duplicates
-- unspecified input { 3i64 [0i32, 1i32] } output { true }
-- unspecified input { 1i64 [0i32] } output { true }
-- ==
-- entry: in_order
-- input { 3i64 [0i64, 1i64] [1i64, 2i64] } output { [1i32, 2i32, 2i32] }
-- input { 2i64 [1i64] [1i64] } output { [0i32, 2i32] }

entry split [n] (k: i64) (xs: [n]i32) : []i32 =
  let (is0, vs0, is1, vs1) =
    unzip4 (map (\x -> (i64.i32 x, x + 1, i64.i32 x + 1, x * 2 + 5)) xs)
  let m = n + n
  in scatter (replicate k 0) (is0 ++ is1 :> [m]i64) (vs0 ++ vs1 :> [m]i32)

entry three [n] (k: i64) (xs: [n]i32) : []i32 =
  let is = map (\x -> i64.i32 x) xs
  let m = n + n + n
  in scatter (replicate k 0)
             (is ++ map (+ 1) is ++ map (+ 2) is :> [m]i64)
             (map (+ 10) xs ++ map (+ 20) xs ++ map (+ 30) xs :> [m]i32)

entry unpaired [n] [m] (k: i64) (a: [n]i64) (b: [m]i64) (c: [m]i32) (d: [n]i32) : []i32 =
  scatter (replicate k 0) (a ++ b) (c ++ d :> [n + m]i32)

-- `x` and `x - 1` collide where two elements are consecutive: slot 0 gets
-- 1 (the first part, element 0) or 2 (the second part, element 1).
entry duplicates [n] (k: i64) (xs: [n]i32) : bool =
  let (is0, vs0, is1, vs1) =
    unzip4 (map (\x -> (i64.i32 x, 1i32, i64.i32 x - 1, 2i32)) xs)
  let m = n + n
  let r = scatter (replicate k 0) (is0 ++ is1 :> [m]i64) (vs0 ++ vs1 :> [m]i32)
  in (r[0] == 1 || r[0] == 2) && reduce (&&) true (map (\v -> v == 0 || v == 1 || v == 2) r)

entry in_order [n] (k: i64) (a: [n]i64) (b: [n]i64) : []i32 =
  let first = scatter (replicate k 0) a (replicate n 1)
  in scatter first b (replicate n 2)
