-- User-defined operators shadow the built-in ones.
module V = {
  def (+) (a: (i32, i32)) (b: (i32, i32)) : (i32, i32) = (a.0 + b.0, a.1 + b.1)
}

def (<*>) (x: i32) (y: i32) : i32 = x * y + x + y

def twice (x: i32) = let (+) (a: i32) (b: i32) = a * b in x + x

-- ==
-- input { 3 }
-- output { 9 19 1 2 6 }
entry main (x: i32) =
  let (a, b) = V.((1, 0) + (0, 2))
  let c = reduce (<*>) 0 [3, 4]
  let d = (V.+) (1, 1) (0, 1)
  in (twice x, c, a, b, d.0 + d.1 + x)
