-- One step of the all-pairs n-body problem: the acceleration of every body
-- from all the others (softened), then new velocities and positions. No n x n
-- array is built: the inner reduction runs per body.

def accel (eps: f32) (xi: f32) (yi: f32) (zi: f32)
          (xs: []f32) (ys: []f32) (zs: []f32) (ms: []f32) : (f32, f32, f32) =
  let (ax, ay, az) =
    unzip3 (map4 (\xj yj zj mj ->
                   let dx = xj - xi
                   let dy = yj - yi
                   let dz = zj - zi
                   let d2 = dx * dx + dy * dy + dz * dz + eps
                   let inv = 1.0f32 / f32.sqrt d2
                   let s = mj * inv * inv * inv
                   in (dx * s, dy * s, dz * s))
                 xs ys zs ms)
  in (reduce (+) 0.0f32 ax, reduce (+) 0.0f32 ay, reduce (+) 0.0f32 az)

-- Bodies' new positions after one step, summed in f64 (so that it prints
-- little).
-- ==
-- input { [0.0f32, 1.0f32] [0.0f32, 0.0f32] [0.0f32, 0.0f32] [1.0f32, 1.0f32] }
-- output { 1.0 0.0 0.0 }
-- random input { [20000]f32 [20000]f32 [20000]f32 [20000]f32 }
-- tags { bench }
entry main [n] (xs: [n]f32) (ys: [n]f32) (zs: [n]f32) (ms: [n]f32) : (f64, f64, f64) =
  let dt = 0.01f32
  let eps = 0.0001f32
  let (nx, ny, nz) =
    unzip3 (map4 (\xi yi zi _ ->
                   let (ax, ay, az) = accel eps xi yi zi xs ys zs ms
                   in (xi + dt * dt * ax, yi + dt * dt * ay, zi + dt * dt * az))
                 xs ys zs ms)
  let total (vs: [n]f32) : f64 = reduce (+) 0.0 (map f64.f32 vs)
  in (total nx, total ny, total nz)
