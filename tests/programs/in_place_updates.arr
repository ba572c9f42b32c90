-- `let a[i] = v` updates in place: it consumes `a`, so a copy, a fresh
-- array, a unique parameter or a loop's own array is what it updates;
-- `with` is a copy and consumes nothing.

def set0 (a: *[]i32) (v: i32) : *[]i32 = let a[0] = v in a

-- ==
-- input { [1, 2, 3] }
-- output { [9, 2, 3] [7, 2, 3] [0, 1, 4] 1 }
entry main (xs: []i32) =
  let ys = copy xs
  let ys[0] = 9
  let zs = set0 (copy xs) 7
  let sq = loop acc = replicate 3 0 for i < 3 do let acc[i] = i32.i64 (i * i) in acc
  let w = xs with [0] = 5
  in (ys, zs, sq, xs[0] + w[0] - 5)

-- Names bound together by a pattern are consumed one at a time.
-- ==
-- entry: pairs
-- input { 3i64 } output { [42i64, 1i64, 2i64] [0i64, 1i64, 2i64] }
entry pairs (n: i64) =
  let a = iota n
  let (b, c) = (iota n, a)
  let b[0] = 42
  in (b, c)
