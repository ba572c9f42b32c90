type opt = #some i32 | #none

entry main (x: i32) : i32 =
  match (#some x : opt)
  case #some a b -> a + b
  case #none -> 0
