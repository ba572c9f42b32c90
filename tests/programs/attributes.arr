-- Attributes are accepted on expressions, declarations, loops and
-- patterns; arrc honours none of them yet (see docs/language.md).

#[inline]
def sq (x: i32) : i32 = x * x

-- ==
-- input { [1, 2, 3] }
-- output { 14 6 }
#[noinline]
entry main (xs: []i32) : (i32, i32) =
  let s = #[sequential] reduce (+) 0 (map sq xs)
  let t = #[unroll] loop acc = 0 for x in xs do acc + x
  let u = #[unsafe] xs[0]
  in (#[trace(sum)] s, t + u - 1)
