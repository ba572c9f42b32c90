entry main (x: i32) : i32 -> i32 = \y -> x + y
