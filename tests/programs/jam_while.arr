-- A map whose points each run a `while` loop (an escape time) runs
-- several points' loops side by side (`loopy::jam`), a lane's state
-- frozen once its own condition fails: different trip counts per lane,
-- none at all, the last block partly past the end, a tuple state of an
-- `f32`, an `f64` and an `i64`, and the same results as one by one.
-- ==
-- input { [0.0f32, 0.3f32, -1.0f32, 2.0f32, 0.25f32, -0.75f32, 0.1f32, 0.5f32, 3.0f32, -2.0f32, 0.2f32] 50i64 }
-- output { [50i64, 12i64, 50i64, 2i64, 50i64, 50i64, 50i64, 5i64, 1i64, 50i64, 50i64] }
-- input { [0.5f32, 0.4f32, 0.6f32] 0i64 } output { [0i64, 0i64, 0i64] }
-- input { empty([0]f32) 10i64 } output { empty([0]i64) }
entry main [n] (cs: [n]f32) (limit: i64) : [n]i64 =
  map (\c ->
         let (_, _, k) =
           loop (z, w, k) = (0.0f32, 0.0f64, 0i64)
           while k < limit && f32.abs z <= 2.0f32 && w < 1.0e6 do
             (z * z + c, w + f64.f32 c, k + 1)
         in k)
      cs
