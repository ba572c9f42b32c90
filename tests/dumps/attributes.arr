-- What the honoured attributes become: the `#[unroll]` loop is gone from
-- the core IR (four copies of its body, each index a constant), the
-- `#[unsafe]` read is `unsafe xs[i]` in the core IR and a read without
-- a check in the loop nests, and the nest of the `#[sequential]` map is
-- planned `sequential: #[sequential]` where the other map's is `chunked`
-- (a SOAC fused with a `#[sequential]` one runs in one thread too).

entry main (xs: []f32) (i: i64) : (f32, f32, []f32, []f32) =
  let r = #[unroll] loop (acc, ys) = (0, replicate 4 0) for k < 4 do
            (acc + xs[k], ys with [k] = f32.i64 k)
  let u = #[unsafe] xs[i]
  let a = #[sequential] map (* 2) xs
  let b = map (+ 1) (r.1 with [0] = 1)
  in (r.0, u, a, b)
