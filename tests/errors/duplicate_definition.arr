def f (x: i32) : i32 = x + 1

def f (x: i32) : i32 = x + 2

entry main (x: i32) : i32 = f x
