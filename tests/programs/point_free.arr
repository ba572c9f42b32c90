-- Entry points defined point-free take the parameters of the function
-- they are.

-- ==
-- entry: main
-- input { [0.5f32, 0f32] }
-- output { [0.54930615f32, 0f32] }
def main = map f32.atanh

def scale (k: i32) (xs: []i32) : []i32 = map (* k) xs

-- ==
-- entry: triple
-- input { [1, 2] }
-- output { [3, 6] }
entry triple = scale 3

-- ==
-- entry: pair
-- input { 2 [1, 2] }
-- output { [2, 4] 3 }
entry pair (k: i32) : []i32 -> ([]i32, i32) = \xs -> (scale k xs, reduce (+) 0 xs)
