-- Reductions whose operator can fail (a checked division, an assertion):
-- on a GPU a block tree (docs/gpu.md, "Block trees"). The operator is never
-- applied to a thread's empty share (an empty input is no error), and a
-- failing iteration of the body wins over the operator's failure.

-- ==
-- entry: divided
-- input { 0i64 0i64 } output { 0i64 }
-- input { 0i64 1i64 } error: ^division by zero at .*reduce_failing_op\.arr:18:
-- input { 0i64 5000i64 } error: ^division by zero at .*reduce_failing_op\.arr:18:
-- input { 1i64 1i64 } output { 0i64 }
-- input { 1i64 3i64 } output { 3i64 }
-- input { 1i64 5000i64 } output { 12497500i64 }

-- Every application of the operator divides by z.
entry divided (z: i64) (n: i64) : i64 =
  let xs = map (\i -> i) (iota n)
  in reduce (\a b -> a + b + 0 / z) 0 xs

-- ==
-- entry: capped
-- input { 0i64 0i64 -1i64 } output { 0i64 }
-- input { 3i64 3i64 -1i64 } output { 3i64 }
-- input { 2i64 3i64 -1i64 } error: ^assertion failed at .*reduce_failing_op\.arr:39:
-- input { 4999i64 5000i64 -1i64 } error: ^assertion failed at .*reduce_failing_op\.arr:39:
-- input { 5000i64 5000i64 -1i64 } output { 5000i64 }
-- input { 4999i64 5000i64 3i64 } error: ^index 13 out of bounds for array of length 10 at .*reduce_failing_op\.arr:40:
-- input { 4999i64 5000i64 2500i64 } error: ^index 2510 out of bounds for array of length 10 at .*reduce_failing_op\.arr:40:
-- input { 4999i64 5000i64 4999i64 } error: ^index 5009 out of bounds for array of length 10 at .*reduce_failing_op\.arr:40:
-- input { 5000i64 5000i64 4000i64 } error: ^index 4010 out of bounds for array of length 10 at .*reduce_failing_op\.arr:40:
-- input { 9i64 5000i64 -1i64 } error: ^assertion failed at .*reduce_failing_op\.arr:39:

-- A sum of n ones that must stay at most lim: over n - 1, only the last
-- application of the operator fails in sequential order, and only the
-- last combination of a tree. Iteration k reads out of bounds first
-- (before any operator in sequential order).
entry capped (lim: i64) (n: i64) (k: i64) : i64 =
  let ones = replicate 10 1i64
  in reduce (\a b -> assert (a + b <= lim) (a + b)) 0
            (map (\i -> if i == k then ones[i + 10] else ones[i % 10]) (iota n))

-- ==
-- entry: composed
-- input { 0i64 empty([0]i32) empty([0]i32) } output { 1i32 0i32 }
-- input { 1i64 [2i32, 3i32, 1i32] [1i32, 0i32, 5i32] } output { 6i32 8i32 }
-- input { 0i64 [2i32, 3i32, 1i32] [1i32, 0i32, 5i32] } error: ^division by zero at .*reduce_failing_op\.arr:56:
-- random input { 1i64 [5000]i32 [5000]i32 } auto output
-- input { 1i64 [2i32, 3i32, 1i32] [1i32, 0i32] } error: ^index 2 out of bounds
-- random input { 0i64 [5000]i32 [5000]i32 } error: ^division by zero at .*reduce_failing_op\.arr:56:

-- Composition of the affine maps x -> a * x + b (wrapping), first one
-- first: not commutative, its inputs read at the index (staged tiles on a
-- GPU); every application divides by z.
entry composed (z: i64) (as: []i32) (bs: []i32) : (i32, i32) =
  let n = length as
  in reduce (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2 + i32.i64 (0 / z))) (1i32, 0i32)
            (map (\i -> (as[i], bs[i])) (iota n))
