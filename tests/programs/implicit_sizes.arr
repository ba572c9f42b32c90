-- Size parameters that no parameter's shape gives, found at each call as
-- Futhark's size unification finds them (shapes/negative-position-shape*,
-- size-inference7, loops/pow2reduce, shape-params7, flatmap, funshape0 in
-- Futhark's tests; diku-dk/linalg's `mat`).

-- Only in the result type: the type written for the result gives them.
def mat [m] [n] (v: f32) : [m][n]f32 = tabulate_2d m n (\i j -> v + f32.i64 (i * n + j))

def fill [n] (x: i64) : [n]i64 = replicate n x

-- No parameters at all: a size-polymorphic value.
def iiota [n] : [n]i64 = iota n

-- ==
-- entry: results
-- input { 2i64 } output { [[1.0f32, 2.0f32, 3.0f32], [4.0f32, 5.0f32, 6.0f32]] [5i64, 5i64] [0i64, 1i64, 2i64, 3i64] [[1.0f32], [2.0f32]] [7i64, 7i64] }

entry results (k: i64) : ([2][3]f32, [k]i64, [2 * k]i64, [][1]f32, []i64) =
  let a: [2][3]f32 = mat 1
  let b = (mat 1 : [k][1]f32)
  in (a, fill 5, iiota, b, copy (fill 7) : [k]i64)

-- An array of the same size beside it.
-- ==
-- entry: beside
-- input { [10i64, 20i64, 30i64] } output { [10i64, 21i64, 32i64] [4i64, 4i64, 4i64] }

entry beside (xs: []i64) =
  let (a, b) = unzip (zip xs iiota)
  let c = map2 (\_ y -> y) xs (fill 4)
  in (map2 (+) a b, c)

-- Inside a size expression: matched term by term with the argument's
-- written size.
def step [k] (xs: [2 ** k]i32) : [2 ** (k - 1)]i32 =
  tabulate (2 ** (k - 1)) (\i -> xs[i * 2] + xs[i * 2 + 1])

def inc (x: i64) = x + 1

def halve [n] (xs: [inc n]i32) : [n]i32 = take n (drop 1 xs)

def cons [n] (x: i32) (xs: [n]i32) : [inc n]i32 = [x] ++ xs :> [inc n]i32

-- ==
-- entry: expressions
-- input { [1, 2, 3, 4] } output { [3, 7] [1, 2, 3, 4] }

entry expressions [n] (xs: [n]i32) =
  let k = 2
  in (step (xs :> [2 ** k]i32), halve (cons 9 xs))

-- Only in a function parameter's type: the function's result size; only
-- in the parameters of the function returned: the argument given to it.
def width [n] (_: i32 -> [n]i32) : i64 = n

def later [n] (_: [n]i32 -> i32) : [n]i32 -> i64 =
  let m = n + 1
  in \_ -> m

-- Not used by the body: nothing needs to give it.
def flatmap [n] [m] 'a 'b (f: a -> [m]b) (as: [n]a) : []b = flatten (map f as)

-- ==
-- entry: functions
-- input { [1, -2, 3] } output { 3i64 5i64 3i64 [1, 2, -2, -1, 3, 4] }

entry functions (xs: []i32) =
  (width (replicate 3), width (\x -> [x, x, x, x, x]), filter (> 0) xs |> later (\_ -> 0),
   flatmap (\x -> [x, x + 1]) xs)

-- Without a declared return type the inferred one may give a size: the
-- definition checks (a use would need the size from somewhere).
def resize [n] [m] (xs: [n]i32) = (length xs, m)

-- The declared result size is checked against the one the call found.
def wrong [n] (x: i64) : [n]i64 = replicate 3 x

-- ==
-- entry: checked
-- input { 3i64 } output { [1i64, 1i64, 1i64] }
-- input { 2i64 } error: size

entry checked (k: i64) : [k]i64 = wrong 1

-- An argument whose size is that of a name a `let` inside it binds: the
-- `let` runs before the call, and `++` adds its operands' sizes
-- (types/ext9 in Futhark's tests).
def halves [n] [m] 't (_: [n + m]t) = (n, m)

-- ==
-- entry: let_argument
-- input { [1, 5, 2, 7] } output { 2i64 4i64 3i64 1i64 }

entry let_argument [k] (xs: [k]i32) =
  let (a, b) = halves (let small = filter (< 3) xs in small ++ xs)
  let (c, d) = halves (let ys = map (+ 1) xs in ys[1:] ++ ys[:1])
  in (a, b, c, d)

-- From the written type of the parameter the value is given for, the
-- function's other arguments giving its sizes (types/sizeparams10).
type same [n] [m] = [n][m]()

def cast [n] [m] 't (_: same [n] [m]) (xs: [n]t) = xs :> [m]t

def swapped [a] [b] : same [a + b] [b + a] = tabulate_2d (a + b) (b + a) (\_ _ -> ())

-- ==
-- entry: abbreviation
-- input { [1, 2] [3, 4, 5] } output { [3, 4, 5, 1, 2] 5i64 }

entry abbreviation [n] [m] (xs: [n]i32) (ys: [m]i32) =
  let zs = cast swapped (ys ++ xs)
  in (zs, length zs)
