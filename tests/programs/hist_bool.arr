-- Histograms of bools over thousands of iterations: on a GPU each update
-- is a compare-and-swap of the byte's 32-bit word (a bool is a byte in
-- memory), into bins privatised in a block's shared memory when they fit
-- (16 KiB), else into the global bins (docs/gpu.md, "Private histogram
-- bins"). Bins that start away from the neutral element keep their value
-- unless an update changes them.

-- ==
-- entry: any_all
-- input { 3i64 [0i64, 2i64, 2i64, 5i64, -1i64] [false, true, false, true, true] }
-- output { [false, false, true] [false, true, false] [false, false, true] [true, false, true] }
-- random input { 16i64 [5000]i64 [5000]bool } auto output
-- random input { 300i64 [6000]i64 [6000]bool } auto output
-- random input { 20000i64 [6000]i64 [6000]bool } auto output

-- Any, all and parity (!=) per bin of indices taken modulo 2m (so about
-- half are out of range, and ignored), and an `||` into bins that start
-- from the inputs' first m values negated.
entry any_all [n] (m: i64) (is: [n]i64) (bs: [n]bool) : ([]bool, []bool, []bool, []bool) =
  let js = map (\i -> i % (2 * m)) is
  let start = map (\j -> !bs[j % n]) (iota m)
  in (hist (||) false m js bs,
      hist (&&) true m js bs,
      hist (!=) false m js bs,
      reduce_by_index (copy start) (||) false js bs)
