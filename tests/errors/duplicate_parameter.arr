def f (x: i32) (x: i32) : i32 = x + 1

entry main (x: i32) : i32 = f x x
