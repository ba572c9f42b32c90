-- the gather reads an earlier cluster's array at computed positions: the
-- array it reads must be manifest, but a map after the gather fuses with it.
-- ==
-- random input { [1000]i32 }
entry main (xs: []i32) : []i32 =
  let ys = map (\x -> x * 2) xs
  let n = length ys
  let rev = map (\i -> ys[n - 1 - i]) (iota n)
  in map (\x -> x + 1) rev
