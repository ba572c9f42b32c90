type opt = #some i32 | #none

entry main (x: i32) : i32 =
  match (#some x : opt, x)
  case (#some 0, _) -> 1
  case (#none, _) -> 2
