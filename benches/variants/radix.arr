-- One pass of a binary radix sort: `partition` by a bit, the two parts
-- concatenated (issue 20; timed against radix.c by run.py).
-- ==
-- input { 1 [1u32, 2u32, 3u32, 4u32, 6u32] }
-- output { [1u32, 4u32, 2u32, 3u32, 6u32] }
-- random input { 3 [40]u32 } auto output

-- ==
-- random input { 7 [20000000]u32 }
-- tags { bench }

entry main [n] (bit: i32) (xs: [n]u32) : [n]u32 =
  let (zeros, ones) = partition (\x -> (x >> u32.i32 bit) & 1 == 0) xs
  in zeros ++ ones
