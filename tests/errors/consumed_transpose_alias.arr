-- `transpose`, `flatten`, `reverse`, `rotate`, `zip` and `unzip` give views
-- of their arguments, as in Futhark: consuming the argument consumes them.
def clear (xss: *[][]f32) : [][]f32 = xss with [0, 0] = 0

entry main (xss: *[][]f32) : f32 =
  let columns = transpose xss
  let cleared = clear xss
  in columns[0, 0] + cleared[0, 0]
