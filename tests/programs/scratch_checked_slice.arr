-- A map's body slices an array it computes, with bounds the map does not
-- change: the slice's count is checked in the body, so a zero-trip map
-- succeeds and a bad slice reports the slice's error, not an allocation
-- of a negative size made once before the loop (random seed 300077,
-- "out of memory (allocating -12 bytes)").
-- ==
-- input { empty([0]i32) }
-- output { empty([0]i64) }
-- input { [1, 2] }
-- error: index 3:6:-1 out of bounds for array of length 2
-- input { [1, 2, 3, 4, 5, 6, 7] }
-- error: index 3:6:-1 out of bounds for array of length 7

entry main (xs: []i32) : []i64 =
  let ys = map (\x -> let s = (map (\y -> y + x) xs)[3:6:-1] in s[0]) xs
  in map (\_ -> 1i64) ys

-- The same for a size the body checks: `tabulate` of a negative length
-- (seeds 200247, 200295, 300151), which is Futhark's invalid range
-- `0..1..<n` (iota_range.arr).
-- ==
-- entry: negative_size
-- input { empty([0]i32) 1i64 }
-- output { empty([0]i32) }
-- input { [1, 2] -1i64 }
-- error: Range 0\.\.1\.\.<-1 is invalid
-- input { [1, 2] 3i64 }
-- output { [3, 6] }

entry negative_size (xs: []i32) (n: i64) : []i32 =
  map (\x -> let s = tabulate n (\i -> x * i32.i64 i) in reduce (+) 0 s) xs

-- A constant negative length (seed 200295).
-- ==
-- entry: constant_negative
-- input { empty([0]bool) }
-- output { empty([0]i32) }
-- input { [true] }
-- error: Range 0\.\.1\.\.<-1 is invalid

entry constant_negative (bs: []bool) : []i32 =
  map (\_ -> let s = map (\_ -> 0i32) (iota (-1i64)) in 1i32 + i32.i64 (length s)) bs
