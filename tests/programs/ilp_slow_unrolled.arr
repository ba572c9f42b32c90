-- Found by `arrc random --target python` (seed 1300115): the build at -O0
-- with the ILP clusterer took about 19 s of CPU time, nearly all in
-- fusion (the `#[unroll]` loop of 4 trips, unsimplified at -O0, puts some
-- 46 SOACs into one body, whose cycle-cut ILP has about 265,000 rows
-- times columns: each of the 20,000 branch-and-bound nodes the budget
-- then allowed cost about 1 ms). The budget now charges each node by its
-- LP's size (docs/fusion.md, "The solver"): 0.6 s, the same clustering.
-- tests/fusion_work.rs bounds the work `--fusion-stats` reports.
-- ==
-- input { empty([0]f32) empty([1][0]bool) empty([1][0]f32) }
-- output { 0u16 }

module type mono = { type t val op : t -> t -> t val ne : t }
module fold_m (M: mono) = { def total (xs: []M.t) : M.t = reduce M.op M.ne xs def running (xs: []M.t) : []M.t = scan M.op M.ne xs }
module fm30 = fold_m { type t = bool def op (a: bool) (b: bool) : bool = (||) a b def ne : bool = false }
module fm60 = fold_m { type t = i8 def op (a: i8) (b: i8) : i8 = (+) a b def ne : i8 = 0i8 }
entry main (in0: []f32) (in1: [][]bool) (in2: [][]f32) : (u16) =
  let (v11, v12) = unzip (map (\x1 -> ((let v4 = (let r2 = {a = (-2i64), b = 3i32} in let r3 = r2 with a = r2.a in 4i64) in (let r5 = {a = v4, b = (i32.u32 4u32)} in let r6 = r5 with a = (-5i64) in r5.a)), (let s8 = (map (\x7 -> (-1i32)) in0) in (if length s8 == 0 then 7i32 else s8[(i64.i32 (match {b = true, a = (-1i32) % 3i32} case {a = 1, b = true} -> (-2i32) case {a = j9, b = false} -> j9 case {a = _, b = b10} -> i32.lowest) % length s8)])))) in0)
  let (v41, v42) = #[unroll] loop (c25, d26) = ((match ((length (map (\x14 -> (u64.f64 x14)) (map (\x13 -> (-1.25f64)) v12))) % 3i64, (false == (bool.i32 6i32))) case (0, true) -> ((bool.f64 (-2.75f64)) && true) case (1, _) -> (reduce_comm (!=) false (let f16 [n17] (p18: [n17]i32) (q19: [n17]i64) : [n17]bool = map2 (\x20 y21 -> true) p18 q19 in f16 v12 v11)) case (j15, false) -> ((bool.f32 (-2.75f32)) == true) case _ -> (let v22 = false in (bool.f64 (f64.i64 (i64.f32 1.75f32))))), (dot (exscan (|) 0u16 (#[noinline] map (\x23 -> 10u16) v11)) (map (\w24 -> w24) (exscan (|) 0u16 (#[noinline] map (\x23 -> 10u16) v11))))) for i27 < 4i64 do ((fm30.total (filter (\f29 -> f29) (map (\x28 -> c25) v12))), ((loop acc31 = u16.highest for i32 < 3i64 do 1u16) * (reduce_comm u16.max u16.lowest (let f35 [n36] (p37: [n36]i8) (q38: [n36]bool) : [n36]u16 = map2 (\x39 y40 -> 3u16) p37 q38 in f35 (map (\x33 -> 9i8) v12) (map (\w34 -> false) (map (\x33 -> 9i8) v12))))))
  let v61 = (map (\((), x43) -> (let s54 = (map (\r49 -> reduce (+) 0i64 r49) (let s48 = (let s47 = (rotate x43 (tabulate (length v12) (\t44 -> false))) in (map (\((), x45) -> (let v46 = (if length v11 == 0 then 4i64 else v11[(i64.i8 (-2i8) % length v11)]) in (assert x45 v46))) (zip (replicate (length s47) ()) s47))) in (unflatten 2i64 (length s48 / 2i64) (take (2i64 * (length s48 / 2i64)) s48)))) in s54[i64.u8 (assert (reduce (||) false (filter (\f57 -> v41) (map (\x56 -> v41) (map (\x55 -> 3u8) in0)))) (let s58 = (replicate (length in0) (u8.i32 i32.lowest)) in (if length s58 == 0 then 6u8 else s58[(i64.i8 (fm60.total (map (\x59 -> 8i8) v12)) % length s58)])))])) (zip (replicate (length v11) ()) v11))
  in (v42)
