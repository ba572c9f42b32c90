-- Entry points taking or returning records (Futhark's opaque values): a
-- library passes them around; an executable cannot read or print them,
-- so, as Futhark's executables do, it still builds, and only its other
-- entry points run.

type point = {x: f32, y: f32}

entry origin (s: f32) : point = {x = s, y = -s}

entry norm1 (p: point) : f32 = f32.abs p.x + f32.abs p.y

entry state (n: i64) : ([]i32, {count: i64}) = (replicate n 1, {count = n})

-- ==
-- input { 2f32 } output { 4f32 }
entry main (s: f32) : f32 = norm1 (origin s)
