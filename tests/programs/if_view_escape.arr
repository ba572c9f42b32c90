-- An `if` whose arms return views (`tail`) of arrays they allocate: each
-- arm frees its array at its end, so the view must be copied out first,
-- also through a nested `if` whose unowned result may view the outer
-- arm's array. The memory was freed under the view and reused by the next
-- allocation (seed 1100287 of `arrc random` on nvptx-emu; the CPU builds
-- read freed memory too, which AddressSanitizer reports).
-- ==
-- entry: direct nested
-- input { [0.5, -2.0, 2.75] true }
-- output { [0u16, 1u16] }
-- input { [0.5, -2.0, 2.75] false }
-- output { [0u16, 0u16] }
-- ==
-- entry: nested
-- input { [0.5] true }
-- output { empty([0]u16) }
-- input { empty([0]f64) false }
-- output { empty([0]u16) }

entry direct (in0: []f64) (c: bool) : []u16 =
  let s = if c then tail (map (\_ -> 1u16) in0) else tail (map (\_ -> 0u16) in0)
  in s with [:1] = replicate 1 0u16

entry nested (in0: []f64) (c: bool) : []u16 =
  let s =
    if c
    then (let a = map (\_ -> 1u16) in0 in if length a == 0 then a else tail a)
    else (let b = map (\_ -> 0u16) in0 in if length b == 0 then b else tail b)
  in s with [:i64.min 1 (length s)] = map (\_ -> 0u16) s[:i64.min 1 (length s)]
