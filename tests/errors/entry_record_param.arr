entry main (p: {x: f32, y: f32}) : f32 = p.x + p.y
