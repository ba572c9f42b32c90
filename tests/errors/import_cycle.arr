import "cycle/a"

entry main (x: i32) : i32 = fa x
