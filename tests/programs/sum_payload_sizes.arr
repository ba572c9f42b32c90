-- An array of sum values holds every constructor's payload for each
-- element; a constructor written out leaves the others' payloads blank,
-- and those blanks take the size of the payloads that hold values (as in
-- Futhark: `[#none, #some [1, 2, 3]]` is an array of `maybe ([3]i32)`).

type maybe 'a = #none | #some a

def total (x: maybe ([]i32)) : i32 =
  match x
  case #none -> 1
  case #some xs -> i32.sum xs

-- ==
-- input { 2 } output { [1, 6, 1] }
entry main (k: i32) : []i32 = map total [#none, #some [1, k, 3], #none]

-- Payloads that hold values must still agree.
-- ==
-- entry: mismatch
-- input { 2i64 } error: ^size mismatch
entry mismatch (n: i64) : []i32 =
  map total [#some (replicate n 1), #none, #some [1, 2, 3]]

-- ==
-- entry: nested
-- input { 2i64 } output { [0, 4, 0] }
entry nested (n: i64) : []i32 =
  map (\x -> match x
             case #none -> 0
             case #some (m: [][]i32) -> i32.sum (map i32.sum m))
      [#none, #some (replicate n (replicate n 1)), #none]
