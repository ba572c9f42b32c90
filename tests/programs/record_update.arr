-- `r with a.b = v`: a copy of a record with one field replaced, as in
-- Futhark (the contract is silent; its users expect it). The path may go
-- through records and tuple components; arrays and loops work as values.

-- ==
-- entry: moved
-- input { 1f32 2f32 } output { 10f32 2f32 }

type point = {x: f32, y: f32}

entry moved (px: f32) (py: f32) : (f32, f32) =
  let p: point = {x = px, y = py}
  let q = p with x = 10f32
  in (q.x, q.y)

-- ==
-- entry: nested
-- input { 4 } output { 4 7 3 }

entry nested (a: i32) : (i32, i32, i32) =
  let r = {inner = {u = a, v = 2}, w = 3}
  let s = r with inner.v = 7
  in (s.inner.u, s.inner.v, s.w)

-- ==
-- entry: component
-- input { 9 } output { 9 5 }

entry component (a: i32) : (i32, i32) =
  let r = {t = (a, 1)}
  in (r with t.1 = 5).t

-- ==
-- entry: arrays
-- input { [1f32, 2f32] } output { [2f32, 4f32] 2f32 [1f32, 2f32] }

entry arrays (xs: []f32) : ([]f32, f32, []f32) =
  let r = {data = xs, scale = 1f32}
  let r2 = r with scale = 2f32 with data = map (* 2f32) xs
  in (r2.data, r2.scale, r.data)

-- ==
-- entry: counted
-- input { 4 } output { 10 }
-- input { 0 } output { 0 }

entry counted (n: i32) : i32 =
  let r = loop r = {count = 0, total = 0} for i < n do
    r with count = r.count + 1 with total = r.total + i
  in r.total + r.count
