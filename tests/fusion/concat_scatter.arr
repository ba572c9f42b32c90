-- A scatter over concatenations is one scatter per part
-- (`simplify-scatter-split`; Futhark's `concat-scatter-fusion`): the
-- second continues the first, as parts of one scatter, and both write in
-- the map's one loop, element by element, so no part is ever written.
-- Out-of-range indices (`-1`, `9`) are ignored in either part. No index
-- repeats: of duplicates any one value may be stored.
-- ==
-- input { 8i64 0i32 [0i32, 2i32, 6i32] }
-- output { [1i32, 5i32, 3i32, 9i32, 0i32, 0i32, 7i32, 17i32] }
-- input { 4i64 0i32 [0i32, 2i32] }
-- output { [1i32, 5i32, 3i32, 9i32] }
-- input { 3i64 5i32 [-1i32, 9i32, 2i32] }
-- output { [3i32, 5i32, 3i32] }
-- input { 1i64 7i32 empty([0]i32) } output { [7i32] }
-- random input { 1000i64 0i32 [1000]i32 }
entry main [n] (k: i64) (fill: i32) (xs: [n]i32) : []i32 =
  let dest = replicate k fill
  let (is0, vs0, is1, vs1) =
    unzip4 (map (\x -> (i64.i32 x, x + 1, i64.i32 x + 1, x * 2 + 5)) xs)
  let m = n + n
  in scatter dest (is0 ++ is1 :> [m]i64) (vs0 ++ vs1 :> [m]i32)
