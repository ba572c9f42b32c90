-- `input @ file output @ file` cases with data files under data/ (paths
-- relative to this file): text files, binary files written by
-- data/gen_binary.py, and text and binary mixed argument by argument.

-- ==
-- entry: prefix
-- input @ data/prefix.in output @ data/prefix.out

entry prefix (xs: []i32) : ([]i32, i32) = (scan (+) 0 xs, reduce (+) 0 xs)

-- ==
-- entry: matvec
-- input @ data/matvec.bin.in output @ data/matvec.bin.out
-- input @ data/matvec.bin.in output { [-2.0f32, -2.0f32] }

entry matvec (m: [][]f32) (v: []f32) : []f32 =
  map (\row -> reduce (+) 0 (map2 (*) row v)) m

-- ==
-- entry: mixed
-- input @ data/mixed.in output { 3i64 [13u8, 23u8, 253u8] }

entry mixed (k: i64) (xs: []u8) : (i64, []u8) = (k, map (+ u8.i64 k) xs)

-- ==
-- entry: bools
-- input @ data/bools.bin.in output { 3 empty([0]i16) }

entry bools (bs: []bool) (e: []i16) : (i32, []i16) =
  (reduce (+) 0 (map i32.bool bs), e)
