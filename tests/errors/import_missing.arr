import "no_such_module"

entry main (x: i32) : i32 = x
