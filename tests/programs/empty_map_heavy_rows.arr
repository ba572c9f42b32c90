-- A map over no rows whose function maps a reduction over 300 elements for
-- each of 300: its rows have length 300 (empty([0][300]u32)). The
-- interpreter's trial run for the row shape gave up at 100,000 statements
-- and made the rows empty, where compiled code knew the size (seed 1400136
-- of `arrc random` at -O0).
-- ==
-- random input { [300]f32 } output { empty([0][300]u32) }

entry main (in0: []f32) : [][]u32 =
  map (\_ -> map (\_ -> map (\_ -> i32.f32 0f32) in0 |> map (\_ -> 1u32) |> reduce (+) 0u32) in0) (iota 0)
