-- `twice` may call `f` on the same value twice; `f` must not consume it
-- unless its type says so.
def twice 'a 'b (f: a -> b) (x: a) : (b, b) = (f x, f x)

def clear (xs: *[]i32) : i32 =
  let xs[0] = 0
  in xs[0]

entry main (xs: *[]i32) : (i32, i32) =
  twice clear xs
