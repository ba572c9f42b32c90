-- Imported by lib/vec3.arr with a path relative to lib/.

def sq (x: f32) : f32 = x * x

def clampi (lo: i32) (hi: i32) (x: i32) : i32 = if x < lo then lo else if x > hi then hi else x
