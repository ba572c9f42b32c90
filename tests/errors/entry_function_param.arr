entry main (f: i32 -> i32) (x: i32) : i32 = f x
