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

-- A deterministic value in [0, 1) for index i of stream k: a 64-bit mix of
-- both (so a big benchmark needs no input beyond its size).
def unit (k: i64) (i: i64) : f32 =
  let x = (i + 1) * -7046029254386353131 + k * 1442695040888963407
  let x = (x ^ (x >>> 31)) * -4658895280553007687
  let x = x ^ (x >>> 29)
  in f32.i64 (x >>> 40) / 16777216.0f32

-- The same on n generated bodies, sized to run about a second on one thread
-- here (the multicore speed-up benchmark, benches/multicore.sh).
-- ==
-- entry: generated
-- input { 3i64 } output { 1.431676596403122 1.5277078449726105 0.32718292623758316 }
-- input { 40000i64 }
-- tags { bench }
entry generated (n: i64) : (f64, f64, f64) =
  let xs = tabulate n (unit 0)
  let ys = tabulate n (unit 1)
  let zs = tabulate n (unit 2)
  let ms = tabulate n (unit 3)
  in main xs ys zs ms
