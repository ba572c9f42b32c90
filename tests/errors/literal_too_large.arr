entry main (x: u8) : u8 = x + 256
