-- Seed 13100960 of `arrc random --nests`, shrunk: under `arrc test -O0
-- --fusion none --target nvptx-emu --strict-fp` it stopped with "out of
-- GPU heap memory (a kernel allocating 1373584 bytes of scratch memory; the
-- device heap has 8388608 bytes)" where the interpreter succeeds. The map
-- over 5 (`v50`) makes eleven per-thread scratch arrays of n*n or 2*n*n
-- elements (8.4 MB a thread for n = 293), sizes host code knows, but an
-- earlier kernel (`v29`'s map, a scratch copy of `in2` per thread) had
-- already allocated from the device heap, which can be raised only before
-- that (a GPU failed alike). Such scratch now comes from the memory pool,
-- one buffer per launch (docs/gpu.md, "Memory"); tests/gpu_kernels.rs runs
-- it unfused at -O0, shrunk and not.
-- ==
-- random input { [293]u8 [3]f64 } auto output
-- random input { [200]u8 [1]f64 } auto output

type shape 't = #pt | #seg t | #box t t
def interleave [n] 't (xs: [n]t) (ys: [n]t) : [n*2]t = flatten (map2 (\x y -> [x, y]) xs ys)
entry main (in0: []u8) (in2: []f64) : ([][]f64) =
  let v29 = (let xs1 = (tabulate (length in0) (\t6 -> 1i32)) in let ys2 = (map (\x9 -> 1u32) (map (\x8 -> 1u64) in0)) in let nest = map (\a3 -> map (\b4 -> 1i64) ys2) xs1 in (let flat = flatten nest in map (\y5 -> (match (if (let s21 = (map (\x20 -> false) in2) in false) then #seg 0i32 else if false then #box 0i32 0i32 else #pt : shape i32) case #seg s24 -> 0u8 case #box u25 w26 -> 0u8 case #pt -> 0u8)) flat))
  let v32 = (map (\o30 -> tabulate 3i64 (\c31 -> 0f64)) v29)
  let v50 = zip (map (\x37 -> 0i64) (replicate 5i64 0i8)) (map (\w47 -> 0f64) (map (\x37 -> (dot (interleave (map (\x38 -> 0i64) v29) (map (\x38 -> 0i64) v29)) (interleave (map (\x38 -> 0i64) v29) (#[noinline] map (\x42 -> 0i64) (#[incremental_flattening(only_inner)] map (\x41 -> true) (map (\x40 -> 0i64) (map (\x39 -> false) (map (\x38 -> 0i64) v29)))))))) (replicate 5i64 0i8)))
  in (v32)
