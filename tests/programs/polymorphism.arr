-- Polymorphic definitions, checked per instantiation: operators and
-- literals on a type parameter; size and type parameters in either order;
-- size parameters used as i64 values; a program's definition shadowing the
-- standard library's one of the same name.

def sum_poly 't [n] (add: t -> t -> t) (zero: t) (xs: [n]t) : t = reduce add zero xs

-- Type parameter first, size parameter second, and the reverse.
def first_or [n] 't (d: t) (xs: [n]t) : t = if n > 0 then xs[0] else d

def pair_with_len 't [n] (xs: [n]t) : [n](t, i64) = map (\x -> (x, n)) xs

-- Literals and operators on a type parameter: valid at every numeric type.
def double_all 't (xs: []t) (two: t) (mul: t -> t -> t) : []t = map (mul two) xs

-- Instantiated at i32, f32 and u8: `+` and `0` on `t` resolve per use.
def total 't (xs: []t) (add: t -> t -> t) (z: t) : t = reduce add z xs

-- The program's own `sum` shadows the standard library's (its neutral
-- element is a real one: a parallel reduce starts every chunk from it).
def sum (xs: []i32) : i32 = 100 + reduce (+) 0 xs

-- ==
-- entry: instantiations
-- input { [1, 2, 3] [1.5f32, 2.5f32] [200u8, 100u8] }
-- output { 6 4.0f32 44u8 1 1.5f32 }

entry instantiations (xs: []i32) (ys: []f32) (zs: []u8) : (i32, f32, u8, i32, f32) =
  (sum_poly (+) 0 xs, sum_poly (+) 0 ys, total zs (+) 0, first_or 0 xs, first_or 0 ys)

-- ==
-- entry: defaults
-- input { empty([0]i32) } output { -1 }

entry defaults (xs: []i32) : i32 = first_or (-1) xs

-- ==
-- entry: size_param
-- input { [true, false, true] } output { [true, false, true] [3i64, 3i64, 3i64] }

-- A size parameter is an i64 value in the body.
entry size_param (bs: []bool) : ([]bool, []i64) = unzip (pair_with_len bs)

-- ==
-- entry: shadow
-- input { [1, 2, 3] } output { 106 }

entry shadow (xs: []i32) : i32 = sum xs

-- ==
-- entry: higher
-- input { [1, 2, 3] [0.5, 1.0] } output { [2, 4, 6] [1.0, 2.0] }

entry higher (xs: []i32) (ys: []f64) : ([]i32, []f64) =
  (double_all xs 2 (*), double_all ys 2 (*))

-- ==
-- entry: poly_lambda
-- input { 3 } output { 3 true 3.0f32 }

-- A polymorphic identity used at three types in one body.
def id 'a (x: a) : a = x

def apply 'a 'b (f: a -> b) (x: a) : b = f x

entry poly_lambda (n: i32) : (i32, bool, f32) =
  (id n, apply id true, apply f32.i32 n)
