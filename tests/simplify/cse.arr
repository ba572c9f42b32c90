-- Common subexpressions: commutative operands in either order, and two
-- maps that differ only in the names of their parameters (then the map2
-- of the two reads one array twice, which becomes a map over it once).
-- nodes: add=3 mul=2 map=3 reduce=1
-- ==
-- input { [1.0f64, 2.0f64, 3.0f64] 2.0f64 3.0f64 } output { 25.0f64 [2.0f64, 4.0f64, 6.0f64] [2.0f64, 5.0f64, 8.0f64] 12.0f64 }

entry main (xs: []f64) (a: f64) (b: f64) : (f64, []f64, []f64, f64) =
  let s = a + b
  let t = b + a
  let ys = map (\x -> x * 2.0) xs
  let zs = map (\y -> y * 2.0) xs
  let ws = map2 (\y z -> y + z / 2.0) ys zs
  in (s * t, ys, map (\w -> w - 1.0) ws, reduce (+) 0.0 zs)
