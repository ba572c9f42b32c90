-- Constructors whose payload is a function (a sum type written `type^`):
-- each `match` case calls the function its constructor holds; the calls of
-- the cases a value does not hold never run.

type^ op = #unary (i32 -> i32) | #scaled f32 (f32 -> f32) | #none

def run (o: op) (x: i32) : i32 =
  match o
  case #unary f -> f x
  case #scaled k g -> i32.f32 (g (k * f32.i32 x))
  case #none -> x

-- ==
-- input { 5 } output { 6 20 5 [2, 3, 3] }
-- input { -3 } output { -2 -12 -3 [2, 3, 3] }
entry main (x: i32) : (i32, i32, i32, []i32) =
  (run (#unary (+ 1)) x, run (#scaled 2 (\y -> y * 2)) x, run #none x,
   map (\i -> if i < 2 then run (#unary (+ 2)) i else run (#scaled 1 id) i) [0, 1, 3])
