-- `random input` blocks may mix constants with types: the constants are
-- passed as text (section 10).

-- ==
-- random input { 3i64 [100]f32 }
-- random input { 0i64 [10]f32 }

entry main (k: i64) (xs: []f32) : []f32 = map (\x -> x * f32.i64 k) xs
