-- Sum types, `match` with constructor, literal, tuple and record patterns,
-- equality on sums, and sums inside arrays and loops.

type shape = #circle f32 | #rect f32 f32 | #empty

type opt 'a = #some a | #none

def area (s: shape) : f32 =
  match s
  case #circle r -> 3f32 * r * r
  case #rect w h -> w * h
  case #empty -> 0f32

def get_or (d: i32) (o: opt i32) : i32 =
  match o
  case #some x -> x
  case #none -> d

def classify (x: i32) : i32 =
  match x
  case 0 -> 100
  case 1 -> 200
  case _ -> x

def first_some (a: opt i32, b: opt i32) : opt i32 =
  match (a, b)
  case (#some x, _) -> #some x
  case (#none, y) -> y

-- Enumerations: constructors without payloads.
type colour = #red | #green | #blue

def next (c: colour) : colour =
  match c
  case #red -> #green
  case #green -> #blue
  case #blue -> #red

-- ==
-- entry: shapes
-- input { 2f32 3f32 }
-- output { [12f32, 6f32, 0f32] }
entry shapes (a: f32) (b: f32) : []f32 =
  map area [#circle a, #rect a b, #empty]

-- ==
-- entry: options
-- input { [1, 0, 5] }
-- output { [1, -1, 5] [200, 100, 5] 7 }
entry options (xs: []i32) : ([]i32, []i32, i32) =
  let os = map (\x -> if x == 0 then #none else #some x) xs
  let f = first_some (#none, #some 7)
  in (map (get_or (-1)) os, map classify xs, get_or 0 f)

-- ==
-- entry: colours
-- input { 4i64 }
-- output { true 1i64 }
entry colours (n: i64) : (bool, i64) =
  let c = loop c = #red for _i < n do next c
  let count = length (filter (== #green) [#red, #green, #blue])
  in (c == #green && c != #blue, count)
