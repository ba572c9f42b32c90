-- Attributes are accepted on expressions, declarations, loops and
-- patterns. `#[unroll]` copies out a `for` loop whose trip count is a
-- constant (its state may hold arrays), `#[sequential]` runs the SOACs of
-- its expression in one thread, `#[unsafe]` drops the bounds checks of its
-- expression's index reads; the rest change nothing (docs/language.md).
-- tests/dumps/attributes.arr shows what each becomes.

#[inline]
def sq (x: i32) : i32 = x * x

def tri (n: i64) : i64 =
  #[unroll] loop acc = 0 for i < n do acc + i

-- ==
-- input { [1, 2, 3] }
-- output { 14 6 [0, 1, 4, 9, 16] 10i64 [1, 3, 6] [2, 3] 15i64 [1, 1, 1] }
-- input { [5, -1, 7, 2, 0, 9, 4, 4, 1] }
-- output { 193 35 [0, 1, 4, 9, 16] 10i64 [5, 4, 11, 13, 13, 22, 26, 30, 31] [5, 7, 2, 9, 4, 4] 15i64 [2, 4, 3] }
#[noinline]
entry main (xs: []i32) : (i32, i32, []i32, i64, []i32, []i32, i64, []i32) =
  let s = #[sequential] reduce (+) 0 (map sq xs)
  let t = #[unroll] loop acc = 0 for x in xs do acc + x
  let u = #[unsafe] xs[0]
  let ys = #[unroll] loop ys = replicate 5 0 for i < 5 do
             let ys[i] = i32.i64 (i * i) in ys
  let z = #[unroll] loop z = 0 for y in [1, 2, 3, 4i64] do z + y
  let sc = #[sequential] scan (+) 0 xs
  let fs = #[sequential] filter (> 1) xs
  let h = #[sequential] hist (+) 0 3 (map (\x -> i64.i32 (x % 3)) xs) (map (const 1) xs)
  in (#[trace(sum)] s, t + u - 1, ys, z, sc, fs, tri 6, h)
