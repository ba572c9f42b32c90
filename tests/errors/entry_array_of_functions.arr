entry main (fs: [](i32 -> i32)) (x: i32) : i32 = x
