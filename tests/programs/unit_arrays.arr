-- Arrays of `()`, of `{}` and of other values without a scalar keep their
-- shape, as in Futhark: length, SOACs, indexing, slices, concatenation,
-- and such arrays inside tuples, records and sum types.

-- ==
-- entry: lengths
-- input { 3i64 } output { 3i64 4i64 2i64 7i64 3i64 3i64 3i64 0i64 4i64 3i64 }
-- input { 0i64 } output { 0i64 1i64 2i64 1i64 0i64 0i64 0i64 0i64 1i64 0i64 }

entry lengths (n: i64) =
  let xs = replicate n ()
  let ys = map (\_ -> ()) (iota (n + 1))
  let rs = replicate 2 {}
  let zs = filter (\_ -> true) (concat xs ys)
  let s = scan (\() () -> ()) () xs
  let (a, b) = unzip (zip xs (iota n))
  let e : [0]() = []
  in ( length xs, length ys, length rs, length zs, length s, length a
     , i64.sum b, length e, length (xs ++ [()]), length ys[1:] )

-- ==
-- entry: nested
-- input { 2i64 3i64 } output { 2i64 3i64 3i64 2i64 6i64 [3i64, 3i64] }

entry nested (n: i64) (m: i64) =
  let xss = replicate n (replicate m ())
  let t = transpose xss
  in (length xss, length xss[0], length t, length t[0], length (flatten xss), map length xss)

-- Tuples and records whose every field is empty, and arrays of pairs with
-- an empty side.
-- ==
-- entry: fields
-- input { [1, 2, 3] } output { 3i64 3i64 [1, 2, 3] 2i64 6 }

entry fields (xs: []i32) =
  let ps = map (\x -> (x, ())) xs
  let rs = map (\_ -> {a = (), b = {}}) xs
  let us = map (\r -> r.b) rs
  let ws = map (\(x, u) -> (u, {c = u}, x)) ps
  let k = reduce (\x y -> x + y) 0 (map (.2) ws)
  in (length ps, length us, map (.0) ps, length (filter (\(x, _) -> x > 1) ps), k)

-- A sum type with a unit payload, a loop over an array of units, and a
-- histogram and a scatter whose values are units.
-- ==
-- entry: others
-- input { 4i64 } output { 2i64 4i64 4i64 3i64 }

type opt = #none | #some ()

entry others (n: i64) =
  let os = map (\i -> if i % 2 == 0 then #some () else #none) (iota n)
  let somes = filter (\o -> match o case #some () -> true case #none -> false) os
  let acc = loop acc = replicate n () for _i < 3 do map (\() -> ()) acc
  let h = reduce_by_index (replicate n ()) (\() () -> ()) () (iota n) (replicate n ())
  let sc = scatter (replicate (n - 1) ()) [0, 1] [(), ()]
  in (length somes, length acc, length h, length sc)

-- Entry points neither read nor print a `()`.
-- ==
-- entry: passes_unit
-- input { 5 } output { 5 }

entry passes_unit (x: i32) (u: ()) : (i32, ()) = (x, u)
