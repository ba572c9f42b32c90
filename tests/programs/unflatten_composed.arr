-- Futhark's `sized (n * m) >-> unflatten`: composing with `unflatten`,
-- `unflatten_3d` or `split` reads the sizes off the first function's
-- result (futhark-benchmarks' micro/transpose).

def unpack_2d n m = sized (i64.i32 n * i64.i32 m) >-> unflatten

def unpack_3d k n m = unflatten_3d <-< sized (i64.i32 k * i64.i32 n * i64.i32 m)

def halves (n: i64) (m: i64) = sized (n + m) >-> split

-- ==
-- input { 2 3 [1, 2, 3, 4, 5, 6] }
-- output { [[1, 4], [2, 5], [3, 6]] [[[1, 4], [2, 5], [3, 6]]] [1, 2] [3, 4, 5, 6] }
-- input { 2 4 [1, 2, 3, 4, 5, 6] }
-- error: size mismatch: 8 and 6
entry main (n: i32) (m: i32) (xs: []i32) : ([][]i32, [][][]i32, []i32, []i32) =
  let t = unpack_2d n m xs |> transpose
  let c = unpack_3d 1 n m xs |> map transpose
  let (a, b) = halves (i64.i32 n) (i64.i32 (n * m - n)) xs
  in (t, c, a, b)
