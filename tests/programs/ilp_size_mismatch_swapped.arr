-- Found by `arrc random` (seed 49, shrunk automatically): issue 17's item
-- 2 again. Under --fusion ilp (-O0, 1 thread) the binary reports
-- "size mismatch: 2 and 1 at 10:27" (the scan), the interpreter and the
-- other strategies "size mismatch: 1 and 2 at 10:101" (the zip). Fixed
-- by the exact-errors fallback (see exact_error_order.arr).
-- ==
-- input { [5i32] } error: size mismatch: 1 and 2 at .*:10:101
-- tags { cpu_exact_errors }
entry main (in2: []i32) : ([]i32) =
  let (v22, v23) = unzip (scan (\(a18, b19) (a20, b21) -> ((+) a18 a20, (|) b19 b21)) (0i32, 0i64) (zip in2 (map (\w17 -> 1i64) (in2 ++ (map (\x14 -> 0i32) in2)))))
  in v22
