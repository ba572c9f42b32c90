-- A definition whose size parameter no parameter gives checks; using it
-- is the error (diku-dk/linalg's `mat`).
def mat [m] [n] (v: f32) : [m][n]f32 = tabulate_2d m n (\_ _ -> v)

entry main (x: f32) = (mat x : [2][2]f32)[0, 0]
