def add3 (a: [3]i32) (b: [3]i32) : [3]i32 = map2 (+) a b

entry main (x: i32) : [3]i32 =
  add3 [x, x, x] [1, 2, 3, 4]
