-- Sequential loops: `for i < n`, `for x in xs`, `while`, tuple state,
-- array state, nested loops, and the type of the loop index.

-- ==
-- entry: sum_to
-- input { 5 } output { 10 }
-- input { 0 } output { 0 }
-- input { -3 } output { 0 }
-- input { 100 } output { 4950 }

-- `for i < n`: i takes the type of n (here i32, so `acc + i` needs no conversion).
entry sum_to (n: i32) : i32 =
  loop acc = 0 for i < n do acc + i

-- ==
-- entry: fib
-- input { 0 } output { 0i64 }
-- input { 1 } output { 1i64 }
-- input { 10 } output { 55i64 }
-- input { 90 } output { 2880067194370816120i64 }

-- Tuple-valued loop state, destructured by a pattern.
entry fib (n: i64) : i64 =
  let (a, _) = loop (a, b) = (0i64, 1i64) for _i < n do (b, a + b)
  in a

-- ==
-- entry: collatz
-- input { 1 } output { 0 }
-- input { 6 } output { 8 }
-- input { 27 } output { 111 }

-- `while` loop with a tuple state.
entry collatz (n: i64) : i32 =
  let (_, steps) =
    loop (x, steps) = (n, 0) while x != 1 do
      if x % 2 == 0 then (x / 2, steps + 1) else (3 * x + 1, steps + 1)
  in steps

-- ==
-- entry: for_in
-- input { [1, 2, 3, 4] } output { 1234 }
-- input { empty([0]i32) } output { 0 }

-- `for x in xs` visits the elements in order.
entry for_in (xs: []i32) : i32 =
  loop acc = 0 for x in xs do acc * 10 + x

-- ==
-- entry: array_state
-- input { 4i64 3 } output { [3, 4, 5, 6] }
-- input { 0i64 3 } output { empty([0]i32) }

-- Loop over an array-valued state: add 1 to every element k times,
-- starting from [0, 1, ..., n-1].
entry array_state (n: i64) (k: i32) : []i32 =
  loop xs = map i32.i64 (iota n) for _i < k do map (+ 1) xs

-- ==
-- entry: nested
-- input { 3 4 } output { 48 }
-- input { 0 4 } output { 0 }

-- Nested loops, the inner one starting from the outer state:
-- sum over i < n, j < m of (i + j + i*j); n=3, m=4 gives 48.
entry nested (n: i32) (m: i32) : i32 =
  loop acc = 0 for i < n do
    loop acc2 = acc for j < m do acc2 + i + j + i * j

-- ==
-- entry: loop_with_update
-- input { 5i64 } output { [1, 2, 4, 8, 16] }

-- A loop that fills an array element by element with `with`.
entry loop_with_update (n: i64) : []i32 =
  let xs = replicate n 1
  in loop xs = xs for i < n - 1 do xs with [i + 1] = xs[i] * 2

-- ==
-- entry: while_halve
-- input { 1000.0f32 } output { 0.9765625f32 10 }
-- input { 0.5f32 } output { 0.5f32 0 }

-- `while` with a float condition; the count is an i32.
entry while_halve (x: f32) : (f32, i32) =
  loop (y, c) = (x, 0) while y >= 1 do (y / 2, c + 1)

-- ==
-- entry: loop_in_map
-- input { [1, 2, 3] } output { [1, 4, 27] }

-- A sequential loop inside a map: x ** x by repeated multiplication.
entry loop_in_map (xs: []i32) : []i32 =
  map (\x -> loop acc = 1 for _i < x do acc * x) xs

-- ==
-- entry: map_in_loop
-- input { [1, 2, 3] 3 } output { [8, 16, 24] }

entry map_in_loop (xs: []i32) (k: i32) : []i32 =
  loop ys = xs for _i < k do map (* 2) ys

-- ==
-- entry: loop_index_type
-- input { 3i64 2i8 } output { 3i64 1i8 }

-- `for i < n` gives i the type of n (i64 here, then i8).
entry loop_index_type (n: i64) (m: i8) : (i64, i8) =
  let a = loop acc = 0 for i < n do acc + i
  let b = loop acc = 0 for j < m do acc + j
  in (a, b)

-- ==
-- entry: record_loop
-- input { 5 } output { 15 120 }

-- A record as loop state.
entry record_loop (n: i32) : (i32, i32) =
  let r = loop r = {s = 0, p = 1} for i < n do {p = r.p * (i + 1), s = r.s + i + 1}
  in (r.s, r.p)

-- ==
-- entry: record_pattern_state
-- input { 4 } output { 3 5 }

-- A record pattern as loop state (fib with fields).
entry record_pattern_state (n: i32) : (i32, i32) =
  let {a, b} = loop {a, b} = {a = 1, b = 1} for _i < n - 1 do {a = b, b = a + b}
  in (a, b)
