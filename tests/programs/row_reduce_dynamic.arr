-- Row reductions inside loops whose rounds only the row knows: a `while`
-- loop whose condition reads the reductions' results, and a `for` loop
-- whose count the row computes. On a GPU a warp or a block still reduces
-- each row (docs/gpu.md, "Row reductions"): every thread of the group
-- gets each result, so all take the same number of rounds, and a row's
-- first error ends the row in the whole group. Rows shorter than a warp,
-- empty rows, and rows of 2,000 elements (a block each when few).

-- ==
-- entry: halvings
-- input { [[5i32, 9i32, 2i32], [0i32, 0i32, 1i32]] } output { [9i64, 9i64] }
-- input { empty([2][0]i32) } output { [0i64, 0i64] }
-- random input { [40][7]i32 } auto output
-- random input { [70][33]i32 } auto output
-- random input { [3][2000]i32 } auto output
-- random input { [1][5000]i32 } auto output

-- Rounds until the row's elements, halved once per round, sum to at most
-- the row's length.
entry halvings (xss: [][]i32) : []i64 =
  map (\row ->
         let row = map (\x -> x % 1000 + 1000) row
         let (rounds, _) =
           loop (rounds, s) = (0i64, reduce (+) 0 row)
           while s > i32.i64 (length row) do
             (rounds + 1, reduce (+) 0 (map (\x -> x >> i32.i64 (rounds + 1)) row))
         in rounds) xss

-- ==
-- entry: compose_until
-- input { [[1i32, 2i32, 3i32], [4i32, 5i32, 6i32]] } auto output
-- input { empty([3][0]i32) } output { [8i32, 8i32, 8i32] }
-- random input { [40][7]i32 } auto output
-- random input { [9][100]i32 } auto output
-- random input { [3][2000]i32 } auto output
-- random input { [2][2600]i32 } auto output

-- Affine maps composed along the row, first one first (associative, not
-- commutative), shifted each round by the result so far, until it is
-- even or four rounds have run.
entry compose_until (xss: [][]i32) : []i32 =
  map (\row ->
         let (_, acc) =
           loop (k, acc) = (0i32, 1i32) while k < 4 && acc % 2 != 0 do
             let (a, b) = reduce (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1i32, 0i32)
                                 (map (\x -> (x % 3 - 1, x - acc)) row)
             in (k + 1, a * 7 + b + acc)
         in acc) xss

-- ==
-- entry: counted
-- input { [[2i32, 1i32, 4i32], [0i32, 5i32, 1i32], [7i32, 1i32, 3i32]] } auto output
-- input { empty([4][0]i32) } output { [0i32, 0i32, 0i32, 0i32] }
-- random input { [40][7]i32 } auto output
-- random input { [70][33]i32 } auto output
-- random input { [3][2000]i32 } auto output
-- random input { [1][5000]i32 } auto output

-- A `for` loop whose count is the row's first element modulo 4, each round
-- a minimum and then a non-commutative composition built from it.
entry counted (xss: [][]i32) : []i32 =
  map (\row ->
         let n = if length row > 0 then i64.i32 (row[0] % 4) else 0
         in loop acc = 0i32 for i < n do
              let m = reduce i32.min i32.highest (map (\x -> x + acc) row)
              let (a, b) = reduce (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1i32, 0i32)
                                  (map (\x -> (x % 3 - 1, x - m)) row)
              in acc * 3 + a + b + i32.i64 i) xss

-- ==
-- entry: fails
-- input { 40i64 7i64 -1i64 0i64 0i64 -1i64 0i64 -1i64 } auto output
-- input { 3i64 2000i64 -1i64 0i64 0i64 -1i64 0i64 -1i64 } auto output
-- input { 40i64 7i64 9i64 1i64 3i64 -1i64 0i64 -1i64 } error: ^index 103 out of bounds for array of length 10 at .*row_reduce_dynamic\.arr:96:
-- input { 40i64 7i64 9i64 1i64 3i64 9i64 1i64 -1i64 } error: ^index 50 out of bounds for array of length 10 at .*row_reduce_dynamic\.arr:94:
-- input { 40i64 7i64 9i64 1i64 3i64 9i64 2i64 -1i64 } error: ^index 103 out of bounds for array of length 10 at .*row_reduce_dynamic\.arr:96:
-- input { 40i64 7i64 9i64 0i64 3i64 30i64 0i64 5i64 } error: ^index 70 out of bounds for array of length 10 at .*row_reduce_dynamic\.arr:98:
-- input { 40i64 7i64 9i64 0i64 3i64 8i64 2i64 30i64 } error: ^index 50 out of bounds for array of length 10 at .*row_reduce_dynamic\.arr:94:
-- input { 40i64 7i64 9i64 2i64 0i64 -1i64 0i64 9i64 } error: ^index 100 out of bounds for array of length 10 at .*row_reduce_dynamic\.arr:96:
-- input { 3i64 2000i64 1i64 1i64 1500i64 -1i64 0i64 -1i64 } error: ^index 1600 out of bounds for array of length 10 at .*row_reduce_dynamic\.arr:96:
-- input { 3i64 2000i64 2i64 2i64 10i64 2i64 2i64 1i64 } error: ^index 70 out of bounds for array of length 10 at .*row_reduce_dynamic\.arr:98:
-- input { 3i64 2000i64 1i64 0i64 1999i64 1i64 1i64 2i64 } error: ^index 2099 out of bounds for array of length 10 at .*row_reduce_dynamic\.arr:96:
-- input { 3i64 2000i64 2i64 2i64 10i64 -1i64 2i64 -1i64 } error: ^index 110 out of bounds for array of length 10 at .*row_reduce_dynamic\.arr:96:

-- Row i of n (m elements) runs rounds while its sum so far is below a bound.
-- Row fr's reduction reads out of bounds in round fk from iteration fj on
-- (index j + 100); row sr reads out of bounds in round sk before its reduction
-- (index 50), row pr after its loop (index 70). The first in order is reported.
entry fails (n: i64) (m: i64) (fr: i64) (fk: i64) (fj: i64) (sr: i64) (sk: i64) (pr: i64) : []i64 =
  let ten = iota 10
  in map (\i ->
            let (_, acc) =
              loop (k, acc) = (0i64, 0i64) while acc < 9 * m do
                let w = ten[if i == sr && k == sk then 50 else k % 10]
                let s = reduce (+) 0 (map (\j -> if i == fr && k == fk && j >= fj
                                                 then ten[j + 100] else (i + j) % 5 + 1) (iota m))
                in (k + 1, acc + s + w)
            in acc + ten[if i == pr then 70 else 0]) (iota n)

-- ==
-- entry: stops
-- input { [[11i32, 12i32, 13i32], [1i32, 0i32, 2i32]] } error: ^assertion failed at .*row_reduce_dynamic\.arr:109:
-- input { [[11i32, 12i32, 13i32], [14i32, 16i32, 16i32]] } output { [6i32, 16i32] }

-- A failing reduction leaves its row before the loop after it, which
-- would never end on the other threads' partial sum (-17, odd).
entry stops (xss: [][]i32) : []i32 =
  map (\row ->
         let s = reduce (+) 0 (map (\x -> assert (x != 0) (x - 10)) row)
         in loop i = 0i32 while i != s do i + 2) xss
