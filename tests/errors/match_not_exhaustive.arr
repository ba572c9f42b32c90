type shape = #circle f32 | #rect f32 f32 | #empty

entry main (x: f32) : f32 =
  match (if x > 0 then #circle x else #empty) : shape
  case #circle r -> r
  case #empty -> 0
