import "lib/vec3

entry main (x: i32) : i32 = x
