-- An entry point's caller gives every size through an argument's shape:
-- one only in the result type is an error (Futhark: negative-position-shape3).
entry main [n] (x: i32) : [n]i32 = replicate n x
