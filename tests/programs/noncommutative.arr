-- Scans and reductions whose operator is associative but not commutative:
-- on a GPU each thread takes a contiguous slice of the iterations, a scan's
-- slice totals are scanned in one block, a reduction's partials combined
-- in a tree per block (docs/gpu.md, "Kernels"); each must keep the order.

-- ==
-- entry: compose
-- input { [2i32, 3i32, 1i32] [1i32, 0i32, 5i32] }
-- output { [2i32, 6i32, 6i32] [1i32, 3i32, 8i32] }
-- random input { [5000]i32 [5000]i32 } auto output

-- Composition of the affine maps x -> a * x + b (wrapping), first one first.
entry compose (as: []i32) (bs: []i32) : ([]i32, []i32) =
  unzip (scan (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1i32, 0i32) (zip as bs))

-- ==
-- entry: last_positive
-- input { [0i64, 3i64, -1i64, 0i64, 7i64, -2i64] }
-- output { [0i64, 3i64, 3i64, 3i64, 7i64, 7i64] 7i64 }
-- random input { [7000]i64 } auto output

-- The last positive value so far, and the reduction beside it.
entry last_positive (xs: []i64) : ([]i64, i64) =
  let ys = scan (\a b -> if b > 0 then b else a) 0 xs
  in (ys, reduce (\a b -> if b > 0 then b else a) 0 xs)

-- ==
-- entry: digits
-- input { [1i64, 2i64, 3i64] } output { [1i64, 12i64, 123i64] }
-- random input { [3000]i64 } auto output

-- Decimal digits appended one after another (wrapping): a = a * 10^k + b.
entry digits (xs: []i64) : []i64 =
  let ds = map (\x -> (x % 10 + 10) % 10) xs
  in map (.0) (scan (\(a, p) (b, q) -> (a * q + b, p * q)) (0i64, 1i64) (zip ds (map (\_ -> 10i64) ds)))

-- ==
-- entry: compose_all
-- input { [2i32, 3i32, 1i32] [1i32, 0i32, 5i32] } output { 6i32 8i32 }
-- input { empty([0]i32) empty([0]i32) } output { 1i32 0i32 }
-- random input { [6000]i32 [6000]i32 } auto output

-- The affine maps composed, first one first.
entry compose_all (as: []i32) (bs: []i32) : (i32, i32) =
  reduce (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1i32, 0i32) (zip as bs)
