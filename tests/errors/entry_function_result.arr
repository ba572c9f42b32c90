entry main (x: i32) : (i32 -> i32) -> i32 = \f -> f x
