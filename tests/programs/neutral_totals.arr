-- Operators that fail on the neutral element and another element
-- (`assert (b != 0)` with 0 as the neutral element): the interpreter
-- applies an operator to the neutral element only with the first element,
-- so a GPU's threads that fold nothing (past the width) must not combine
-- their neutral totals or partials with another value. Before, a
-- look-back scan's warps combined those threads' totals (in the warp scan
-- and across warps), and a reduction beside such a scan or with more than
-- 6 fields combined their partials: all failed where the interpreter does
-- not. Short
-- inputs and long ones (several tiles and blocks under ARRC_GPU_SHRINK=1),
-- and an element 0 that fails in the interpreter too.
-- ==
-- entry: scan_right_neutral scan_with_sum reduce_beside_scan reduce_seven
-- input { 0i64 -1i64 } auto output
-- input { 1i64 -1i64 } auto output
-- input { 10i64 -1i64 } auto output
-- input { 100i64 -1i64 } auto output
-- input { 777i64 -1i64 } auto output
-- input { 5000i64 -1i64 } auto output
-- input { 5000i64 3001i64 } error: ^assertion failed at .*neutral_totals\.arr:

def elems (n: i64) (k: i64) : []i64 =
  map (\i -> if i == k then 0 else 1 + i % 7) (iota n)

def op (a: i64) (b: i64) : i64 = assert (b != 0) (a + b)

entry scan_right_neutral (n: i64) (k: i64) : (i64, i64) =
  let ys = scan op 0 (elems n k)
  in if n == 0 then (0, 0) else (ys[n - 1], ys[n / 2])

entry scan_with_sum (n: i64) (k: i64) : (i64, i64) =
  let xs = elems n k
  let ys = scan op 0 xs
  in (if n == 0 then 0 else ys[n - 1] + ys[n / 3], reduce (+) 0 (map (* 3) xs))

entry reduce_beside_scan (n: i64) (k: i64) : (i64, i64) =
  let xs = elems n k
  let ys = scan (+) 0 xs
  in (if n == 0 then 0 else ys[n - 1], reduce op 0 xs)

entry reduce_seven (n: i64) (k: i64) : (i64, i64, i64, i64, i64, i64, i64) =
  reduce (\(a0, a1, a2, a3, a4, a5, a6) (b0, b1, b2, b3, b4, b5, b6) ->
            (op a0 b0, a1 + b1, a2 * b2, i64.max a3 b3, a4 ^ b4, i64.min a5 b5, a6 + b6))
         (0, 0, 1, i64.lowest, 0, i64.highest, 0)
         (map (\x -> (x, x + 1, 1, x, x, x, x * 2)) (elems n k))
