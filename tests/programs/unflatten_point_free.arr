-- `unflatten`, `unflatten_3d` and `split` as a definition's whole body,
-- with the declared type written as a function: the sizes come from the
-- parameter's type, as with Futhark's newer signatures.

def grid 't (r: i32) (c: i32) : [i64.i32 r * i64.i32 c]t -> [][]t = unflatten

def cube 't (a: i64) (b: i64) (c: i64) : [a * b * c]t -> [a][b][c]t = unflatten_3d

def halves 't (n: i64) (m: i64) : (v: [n + m]t) -> ([n]t, [m]t) = split

-- ==
-- input { 2 3 [1, 2, 3, 4, 5, 6] }
-- output { [[1, 4], [2, 5], [3, 6]] [[[1, 2], [3, 4]], [[5, 6], [7, 8]]] [1, 2] [3, 4, 5, 6] }
entry main (r: i32) (c: i32) (xs: [6]i32) : ([][]i32, [2][2][2]i32, []i32, []i32) =
  let g = grid r c (xs :> [i64.i32 r * i64.i32 c]i32) |> transpose
  let k = cube 2 2 2 (map (+ 1) (iota 8 |> map i32.i64))
  let (a, b) = halves 2 4 xs
  in (g, k, a, b)
