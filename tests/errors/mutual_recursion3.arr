def a (x: i32) : i32 = b x
def b (x: i32) : i32 = c x
def c (x: i32) : i32 = if x > 0 then a (x - 1) else 0

entry main (x: i32) : i32 = c x
