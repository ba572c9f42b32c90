-- `random input { ... }` cases with no expected output: the compiled
-- program must agree with the interpreter (floats uniform in [0, 1),
-- integers over their type's whole range, so integer overflow is exercised).

-- ==
-- entry: saxpy
-- random input { f32 [1000]f32 [1000]f32 }
-- random input { f32 [1]f32 [1]f32 }

entry saxpy (a: f32) (xs: []f32) (ys: []f32) : []f32 = map2 (\x y -> a * x + y) xs ys

-- ==
-- entry: int_mix
-- random input { [500]i32 [500]i32 }
-- random input { [2000]i32 [2000]i32 }

-- Wrapping arithmetic and floor division on the whole i32 range (a zero
-- divisor is replaced by 1).
entry int_mix (xs: []i32) (ys: []i32) : ([]i32, []i32, i32) =
  let qs = map2 (\x y -> x / (if y == 0 then 1 else y) + x % (if y == 0 then 1 else y)) xs ys
  in (map2 (\x y -> x * y + (x >> 3) ^ y) xs ys, qs, reduce (+) 0 qs)

-- ==
-- entry: narrow_types
-- random input { [300]i8 [300]u16 [300]u64 }

entry narrow_types (a: []i8) (b: []u16) (c: []u64) : ([]i8, []u16, []u64, []i32) =
  ( map (\x -> x * 3 - 1) a
  , map (\x -> x // 7 + x %% 5) b
  , map (\x -> x / 3 + (x >>> 60)) c
  , map i8.popc a )

-- ==
-- entry: matrix
-- random input { [20][30]f64 }

entry matrix (m: [][]f64) : ([]f64, [][]f64) =
  (map (reduce (+) 0) m, map (scan (+) 0) m)

-- ==
-- entry: bools
-- random input { [1000]bool }

entry bools (bs: []bool) : (i32, bool, bool) =
  ( reduce (+) 0 (map i32.bool bs)
  , reduce (&&) true bs
  , reduce (||) false bs )

-- ==
-- entry: conversions
-- random input { [1000]f32 [1000]i64 }

entry conversions (xs: []f32) (ys: []i64) : ([]i32, []u8, []f32, []i16) =
  ( map (\x -> i32.f32 (x * 1e10 - 5e9)) xs
  , map (\x -> u8.f32 (x * 600 - 150)) xs
  , map f32.i64 ys
  , map i16.i64 ys )
