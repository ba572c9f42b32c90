-- A helper module for imports.arr (no test block: skipped by the runner).
-- It imports a file of its own, relative to this file's directory.

import "sub/scalar"

type vec3 = (f32, f32, f32)

def vadd ((a, b, c): vec3) ((x, y, z): vec3) : vec3 = (a + x, b + y, c + z)

def vdot ((a, b, c): vec3) ((x, y, z): vec3) : f32 = a * x + b * y + c * z

def vscale (k: f32) ((a, b, c): vec3) : vec3 = (sq k * a / k, k * b, k * c)
