-- An integer literal with a type suffix wraps to that type's width, as
-- Futhark's lexer reads it (fluid.fut writes `255i8`); without a suffix a
-- literal that does not fit is an error (tests/errors/literal_too_large*).

-- ==
-- input { 1i8 }
-- output { 0i8 44i8 -1i8 65535u16 44u8 }
entry main (x: i8) = (x + 255i8, 300i8, 0xFFi8, 65535u16, 200u8 + 100u8)
