entry main (x: i32) (y: i64) : []i32 = x..<y
