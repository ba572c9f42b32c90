-- Found by `arrc random` (seed 41, shrunk automatically): issue 17's item
-- 3. Two statements fail; under --fusion ilp (-O0, 1 thread) the binary
-- reports the second (line 13), the interpreter and the other strategies
-- the first (line 12). Fixed by the exact-errors fallback: after a
-- run-time error the binary re-runs the entry unfused and reports the
-- first error in sequential order, as the interpreter does.
-- ==
-- input { empty([0]u64) } error: assertion failed at .*:12:28
-- input { [1u64] } error: assertion failed at .*:12:28
-- tags { cpu_exact_errors }
entry main (in0: []u64) : ([]i32) =
  let v18 = (map (\h17 -> (assert false 0i32)) (replicate 1i64 1i32))
  let v21 = (if (assert false true) then (map (\x19 -> 1f64) in0) else (map (\x19 -> 0f64) in0))
  in (v18)
