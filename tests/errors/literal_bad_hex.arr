entry main (x: i32) : i32 = x + 0x
