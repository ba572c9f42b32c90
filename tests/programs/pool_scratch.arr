-- Per-thread scratch arrays whose sizes host code knows come from one
-- device buffer per launch, taken from the memory pool, a slice per thread
-- (docs/gpu.md, "Memory"). `main`: a reduction's scratch first, then a
-- map whose scratch (9.6 MB a thread) is over the 8 MiB device heap that
-- the first kernel fixed: on the heap it failed ("out of GPU heap
-- memory"). The others: a look-back scan, a sequential loop and both
-- branches of an `if` with scratch arrays in each iteration.
-- ==
-- input { 3i64 [1i64, 2i64, 3i64] }
-- auto output
-- input { 0i64 [1i64, 2i64, 3i64] }
-- auto output

entry main [n] (k: i64) (xs: [n]i64) : (i64, []i64) =
  let a = map (\i -> let s = scan (+) 0 (map (* i) xs) in s[i % n] + s[(i * 7) % n]) (iota k)
  let c = reduce (+) 0 a
  let big = flatten (replicate 400000 xs)
  let m = 400000 * n
  let b = map (\i -> let t = scan (+) 0 (map (^ (i + c)) big) in t[(i * 13) % m] - t[i % m]) (iota k)
  in (c, b)

-- ==
-- entry: scan_scratch
-- input { 5000i64 [4i64, 1i64, 7i64, 2i64, 9i64, 3i64, 8i64, 5i64, 6i64, 0i64] }
-- auto output
-- input { 3i64 [4i64, 1i64, 7i64] }
-- auto output

entry scan_scratch [n] (k: i64) (xs: [n]i64) : []i64 =
  scan (+) 0 (map (\i -> let s = scan (+) 0 (map (\x -> x * (i % 5)) xs) in s[(i * 3) % n] - s[i % n]) (iota k))

-- ==
-- entry: loop_scratch
-- input { 700i64 [4i64, 1i64, 7i64, 2i64, 9i64, 3i64, 8i64, 5i64, 6i64, 0i64] }
-- auto output

entry loop_scratch [n] (k: i64) (xs: [n]i64) : []i64 =
  map (\i ->
         loop acc = 0 for r < 3 do
           let s = scan (+) 0 (map (\x -> x + r + i) xs)
           let v = if i % 2 == 0
                   then let t = scan (*) 1 (map (\x -> x % 3 + 1) s) in t[(i + r) % n]
                   else let u = scan i64.max 0 (map (\x -> x - i) s) in u[r % n]
           in acc + s[(i + r) % n] + v)
      (iota k)
