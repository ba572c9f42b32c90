-- A `for` loop that only reads its array parameter starts from its
-- initial array, uncopied (`loopy::borrow`): iteration 0 leaves that array
-- to its owner, a loop of no iteration returns a copy of it. Every trip
-- count (negative, 0, 1, several), an argument read again or returned
-- after the loop, and loops the rewrite must leave alone (the body updates
-- the parameter, returns it, or runs in a branch or another loop) must
-- give what the interpreter gives.

-- ==
-- entry: smooth
-- input { 0 [1f32, 2f32, 3f32, 4f32] } auto output
-- input { -3 [1f32, 2f32, 3f32, 4f32] } auto output
-- input { 1 [1f32, 2f32, 3f32, 4f32] } auto output
-- input { 4 [1f32, 2f32, 3f32, 4f32] } auto output
-- input { 2 empty([0]f32) } auto output
-- random input { 5 [1000]f32 } auto output

entry smooth [n] (steps: i32) (xs: [n]f32) : [n]f32 =
  loop g = xs for _i < steps do
    map3 (\c l r -> (c + l + r) / 3f32) g (rotate (-1) g) (rotate 1 g)

-- The argument is returned and read after the loop too.
-- ==
-- entry: kept
-- input { 0i64 [1, 2, 3] } auto output
-- input { 3i64 [1, 2, 3] } auto output
-- input { -1i64 [1, 2, 3] } auto output

entry kept [n] (steps: i64) (xs: [n]i32) : ([n]i32, [n]i32, i32) =
  let r = loop g = xs for i < steps do map (+ i32.i64 i) (rotate 1 g)
  in (r, xs, reduce (+) 0 xs)

-- The body updates its parameter in place: not borrowed.
-- ==
-- entry: updated
-- input { 0 [1, 2, 3] } auto output
-- input { 5 [1, 2, 3] } auto output

entry updated [n] (steps: i32) (xs: [n]i32) : ([n]i32, [n]i32) =
  let r = loop g = xs for i < steps do g with [i32.i64 (i64.i32 i % n)] = i
  in (r, xs)

-- The body returns its parameter on some iterations.
-- ==
-- entry: sometimes
-- input { 0u8 [1, 2, 3] } auto output
-- input { 1u8 [1, 2, 3] } auto output
-- input { 6u8 [1, 2, 3] } auto output
-- input { 255u8 [1, 2, 3] } auto output

entry sometimes [n] (steps: u8) (xs: [n]i32) : [n]i32 =
  loop g = xs for i < steps do
    if i % 2 == 0 then g else map (* 2) (reverse g)

-- Two parameters from one argument, the loop in a branch and a loop
-- inside another one, over a matrix's rows.
-- ==
-- entry: nested
-- input { true 2 [[1, 2], [3, 4]] } auto output
-- input { false 2 [[1, 2], [3, 4]] } auto output
-- input { true 0 [[1, 2], [3, 4]] } auto output
-- input { true 3 empty([0][2]i32) } auto output

entry nested [n] [m] (b: bool) (steps: i32) (xss: [n][m]i32) : ([n][m]i32, [n][m]i32) =
  if b then
    loop (p, q) = (xss, xss) for _i < steps do
      let q2 = loop h = p for _j < steps do map (map (+ 1)) (rotate 1 h)
      in (map2 (map2 (+)) q2 q, p)
  else (xss, map (map (* 3)) xss)
