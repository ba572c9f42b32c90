-- An index whose type is not yet known where it indexes may be any signed
-- integer type, as in Futhark: here `i` turns out to be an `i32`
-- (radixtree.fut in futhark-benchmarks), and the literal arguments of
-- `delta` follow it.

-- ==
-- input { [10u32, 20u32, 30u32] 2i64 }
-- output { 23u32 30u32 10u32 [10u32, 20u32, 30u32] }
-- input { [10u32, 20u32, 30u32] 5i64 }
-- error: out of bounds
entry main [n] (xs: [n]u32) (k: i64) =
  let delta (i, j) =
    if j >= 0 && j < i32.i64 n then xs[i] + u32.i32 j + u32.i32 i else 0
  let get ys i = ys[i]
  in (delta (1, 2), get xs k, (\i -> xs[i]) (i8.i64 0), map (\i -> xs[i]) (iota n))
