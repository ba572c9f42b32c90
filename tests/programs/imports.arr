-- `import "lib/vec3"` is relative to this file and has no `.arr`; the
-- imported file imports another one relative to itself; definitions of
-- both are visible here (`sq` comes from lib/sub/scalar.arr through vec3).

import "lib/vec3"
import "lib/sub/scalar"

-- ==
-- entry: dot
-- input { 1.0f32 2.0f32 3.0f32 } output { 14.0f32 2.0f32 4.0f32 6.0f32 }

entry dot (a: f32) (b: f32) (c: f32) : (f32, f32, f32, f32) =
  let v: vec3 = (a, b, c)
  let w = vadd v v
  in (vdot v v, w.0, w.1, w.2)

-- ==
-- entry: scale
-- input { 3.0f32 } output { 3.0f32 6.0f32 9.0f32 9.0f32 }

entry scale (k: f32) : (f32, f32, f32, f32) =
  let (x, y, z) = vscale k (1, 2, 3)
  in (x, y, z, sq k)

-- ==
-- entry: clamp
-- input { [-5, 5, 50] } output { [0, 5, 10] }

entry clamp (xs: []i32) : []i32 = map (clampi 0 10) xs
