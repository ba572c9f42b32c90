-- `[]`, `[n]` and `*` written before a sum type without parentheses take
-- the whole sum, as in Futhark: `*[]#on | #off` is `*[](#on | #off)`.

def toggle (n: i64) : *[]#on | #off =
  let xs = replicate n #off ++ replicate n #on
  in loop xs for i < n do
       xs with [i] = match xs[i]
         case #on -> #off
         case #off -> #on

def count_on [n] (xs: [n]#on | #off) : i64 =
  i64.sum (map (\x -> match x
                      case #on -> 1
                      case #off -> 0) xs)

def pairs : [2][3]#a i32 | #b = [[#a 1, #b, #a 3], [#b, #b, #a 6]]

def on_of (x: #a i32 | #b) : #on | #off =
  match x
  case #a _ -> #on
  case #b -> #off

def payload (x: #a i32 | #b) : i32 =
  match x
  case #a v -> v
  case #b -> 0

-- ==
-- entry: main
-- input { 3i64 }
-- output { 6i64 3i64 10 }
entry main (n: i64) : (i64, i64, i32) =
  let total = i64.sum (map (\row -> count_on (map on_of row)) pairs)
  in (count_on (toggle n), total, i32.sum (map payload (flatten pairs)))
