def f (x: i32) : i32 = if x == 0 then 0 else g (x - 1)
def g (x: i32) : i32 = f x

entry main (x: i32) : i32 = f x
