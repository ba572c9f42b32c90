-- Found by `arrc random --kernels` (seed 11100165, nvptx-emu, -O0, fusion
-- none): correct, but slow. A map over 32,769 values whose body rebuilds
-- four arrays of `in0`'s length (a loop-invariant `dot`) launches, at -O0
-- without fusion, the inner maps of each value as a block of threads
-- (`#[incremental_flattening(only_inner)]`) that meet at a few barriers;
-- the emulator switched each of the block's 256 fibers at each barrier
-- with `swapcontext`, two system calls a switch: 56 s (-O3, which hoists
-- the invariant, and x86-64 -O0 took 16 ms). A switch of registers
-- (`arr_emu_switch`, docs/gpu.md) takes it to 4 s. As a golden program it
-- checks the result; the time is for benchmarks:
--
--   arrc build -O0 --fusion none --target nvptx-emu emu_o0_inner_maps_slow.arr -o p
--   time ./p --threads 1 <<< '[-2i32]'
-- ==
-- input { [-2i32] } output { 32769.0f64 }

def twice 't (f: t -> t) (x: t) : t = f (f x)
entry main (in0: []i32) : (f64) =
  let v12 = (let l1 = 32769i64 in let xs2 = (map (\i4 -> (if (let {a = ra5, b = rb6} = {b = 12u64, a = false} in false) then (twice (\y7 -> (-0.5f64)) 2.5f64) else (dot (#[incremental_flattening(only_inner)] map (\x8 -> (-0.5f64)) in0) (map (\w9 -> w9) (#[incremental_flattening(only_inner)] map (\x8 -> (-0.5f64)) in0))))) (iota l1)) in let ys3 = (map (\i10 -> ((f64.floor (-3.0f64)) - (reduce (+) 0f64 (tabulate 14i64 (\t11 -> (-0.5f64)))))) (iota l1)) in reduce (+) 0f64 (map2 (*) xs2 ys3))
  in (v12)
