-- Futhark's newer one-argument `unflatten`, passed as a function value
-- whose type is an abbreviation: arrc says how to apply it instead.
type to_rows 'a = [2 * 3]a -> [2][3]a

def rows 'a : to_rows a = unflatten

entry main (xs: [6]f32) : [2][3]f32 = rows xs
