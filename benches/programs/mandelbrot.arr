-- Escape times of an n x m grid over [-2.25, 0.75] x [-1.5, 1.5], at most
-- `limit` iterations per point. Points inside the set take all iterations
-- and points outside only a few, so the work per row is uneven.

def escape (limit: i32) (cr: f32) (ci: f32) : i32 =
  let (_, _, k) =
    loop (zr, zi, k) = (0.0f32, 0.0f32, 0i32)
    while k < limit && zr * zr + zi * zi < 4.0f32 do
      (zr * zr - zi * zi + cr, 2.0f32 * zr * zi + ci, k + 1)
  in k

-- The total of all escape times. The large grids are benchmarks only:
-- with fused multiply-adds (LANGUAGE.md section 6) a few points' chaotic
-- iterations end one step apart from the interpreter's, which rounds
-- twice, so their totals differ slightly (`--strict-fp` agrees exactly).
-- ==
-- input { 4i64 4i64 255 } output { 856 }

-- ==
-- input { 2000i64 2000i64 255 }
-- input { 2500i64 2500i64 255 }
-- tags { bench }
entry main (n: i64) (m: i64) (limit: i32) : i32 =
  let counts =
    tabulate_2d n m (\i j ->
      let cr = -2.25f32 + 3.0f32 * f32.i64 j / f32.i64 m
      let ci = -1.5f32 + 3.0f32 * f32.i64 i / f32.i64 n
      in escape limit cr ci)
  in reduce (+) 0 (flatten counts)
