-- A lambda may be the last argument of a call without parentheses, as in
-- Futhark (`tabulate n \i -> e`), and a lambda's parameter is in scope in
-- the types of the parameters after it (`\n (xs: [n]t) -> e`).

type^ sized_sum = (k: i64) -> [k]i32 -> i32

def total : sized_sum = \k (xs: [k]i32) -> reduce (+) 0 xs

-- ==
-- input { 4i64 [1, 2, 3] }
-- output { [0i64, 2i64, 4i64, 6i64] [1, 3, 5] 6 12i64 }
entry main (n: i64) (xs: []i32) =
  let k = length xs
  in (tabulate n \i -> i * 2,
      map2 (\x i -> x + i32.i64 i) xs (iota k),
      total k xs,
      reduce (+) 0 (iota n) |> \s -> s * 2)
