-- a scan whose results are scattered: the scan carries a value from chunk
-- to chunk and the scatter writes at random, so they run as two loops; the
-- maps before and after the scan fuse with it or with the scatter. The
-- targets reverse the input.
-- ==
-- input { [1i64, 0i64, 3i64] [9i64, 9i64, 9i64] } output { [3i64, 0i64, 1i64] }
-- random input { [1000]i64 [1000]i64 }
entry main [n] (flags: [n]i64) (dest: [n]i64) : [n]i64 =
  let ones = map (\_ -> 1i64) flags
  let offsets = scan (+) 0 ones
  let targets = map (\o -> n - o) offsets
  in scatter dest targets flags
