-- Futhark's value reader: an integer with a suffix wraps to its type's
-- width (`255i8` is -1), as test data written for Futhark expects; one
-- without a suffix must fit.
-- ==
-- input { 255i8 0b11111111i8 4294967295i32 32768i16 }
-- output { -1i8 -1i8 -1 -32768i16 }
-- input { 128 0i8 0 0i16 } error: out of range
entry main (a: i8) (b: i8) (c: i32) (d: i16) = (a, b, c, d)
