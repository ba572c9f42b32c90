-- A size parameter that no parameter's shape gives is found at each call
-- (diku-dk/linalg's `mat`); here nothing around the call gives it.
def mat [m] [n] (v: f32) : [m][n]f32 = tabulate_2d m n (\_ _ -> v)

entry main (x: f32) = let a = mat x in a[0, 0]
