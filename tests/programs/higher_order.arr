-- Higher-order and polymorphic definitions are inlined.
-- ==
-- input { [1, 2, 3] } output { [4, 5, 6] 15 }

def twice 't (f: t -> t) (x: t) : t = f (f x)

def sum [n] (xs: [n]i32) : i32 = reduce (+) 0 xs

entry main (xs: []i32) : ([]i32, i32) =
  let ys = map (twice (\x -> x + 1)) xs
  let ys' = map (+ 1) ys
  in (ys', sum ys')
