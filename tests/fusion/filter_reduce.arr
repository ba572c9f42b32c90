-- A filter fuses into the reduction of its result: one loop.
-- ==
-- input { [1i32, -2i32, 3i32, 0i32, -5i32, 7i32] } output { 11i32 }
-- input { empty([0]i32) } output { 0i32 }
-- random input { [1000]i32 }
entry main (xs: []i32) : i32 = reduce (+) 0 (filter (> 0) xs)
