-- SAXPY: a * x + y over n single-precision elements. Memory-bound: reads
-- two arrays and writes one (12 bytes per element).
-- ==
-- input { 2.0f32 [1.0f32, 2.0f32, 3.0f32] [0.5f32, 0.25f32, -1.0f32] }
-- output { [2.5f32, 4.25f32, 5.0f32] }
-- input { 0.5f32 empty([0]f32) empty([0]f32) } output { empty([0]f32) }

-- ==
-- random input { 2.0f32 [50000000]f32 [50000000]f32 }
-- tags { bench }
entry main [n] (a: f32) (xs: [n]f32) (ys: [n]f32) : [n]f32 =
  map2 (\x y -> a * x + y) xs ys
