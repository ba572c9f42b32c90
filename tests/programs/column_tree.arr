-- Reductions of arrays over many iterations and few columns. On a GPU
-- the iterations are cut into chunks of a thread each, whose partial
-- rows are then combined column by column in chunk order (docs/gpu.md,
-- "Reductions of arrays in chunks"); few iterations or many columns keep
-- a thread per column.

-- ==
-- entry: colsum
-- input { empty([0][4]i64) } output { [0i64, 0i64, 0i64, 0i64] }
-- input { [[1i64, 2i64, 3i64, 4i64], [10i64, 20i64, 30i64, 40i64]] } output { [11i64, 22i64, 33i64, 44i64] }
-- random input { [7][4]i64 } auto output
-- random input { [5000][4]i64 } auto output
-- random input { [40000][4]i64 } auto output

-- A constant width: the inner map is unrolled, no column form fits.
entry colsum (xss: [][4]i64) : [4]i64 = reduce (map2 (+)) (replicate 4 0) xss

-- ==
-- entry: colsum_dyn
-- input { empty([0][3]i32) } output { [0i32, 0i32, 0i32] }
-- input { empty([5][0]i32) } output { empty([0]i32) }
-- random input { [9][3]i32 } auto output
-- random input { [3000][3]i32 } auto output
-- random input { [60][200]i32 } auto output
-- random input { [20000][1]i32 } auto output
-- random input { [2000][40]i32 } auto output

entry colsum_dyn [m] (xss: [][m]i32) : [m]i32 = reduce (map2 (+)) (replicate m 0) xss

-- ==
-- entry: firsts
-- input { [[7i64, 1i64], [14i64, 21i64]] } output { [7i64, 21i64] [14i64, 21i64] }
-- random input { [6000][3]i64 } auto output
-- random input { [3][5000]i64 } auto output
-- random input { [25000][2]i64 } auto output

-- Per column, the first and the last element divisible by 7: associative,
-- not commutative, so chunks must be combined in order.
entry firsts [m] (xss: [][m]i64) : ([m]i64, [m]i64) =
  let sparse = map (map (\x -> if x % 7 == 0 then x else 0)) xss
  in (reduce (map2 (\a b -> if a != 0 then a else b)) (replicate m 0) sparse,
      reduce (map2 (\a b -> if b != 0 then b else a)) (replicate m 0) sparse)

-- ==
-- entry: any_round
-- random input { [9000][5]i64 } auto output
-- random input { [100][5]i64 } auto output

-- Booleans (a byte each in memory).
entry any_round [m] (xss: [][m]i64) : [m]bool =
  reduce (map2 (||)) (replicate m false) (map (map (\x -> x % 4096 == 0)) xss)

-- ==
-- entry: fails
-- input { 5000i64 -1i64 -1i64 1i64 } output { 37497500i64 }
-- input { 0i64 -1i64 -1i64 1i64 } output { 0i64 }
-- input { -1i64 -1i64 -1i64 1i64 } error: ^.*
-- input { 5000i64 -1i64 -1i64 7i64 } error: ^index 7 out of bounds for array of length 3 at .*column_tree\.arr:74:
-- input { 5000i64 4000i64 -1i64 1i64 } error: ^index 4010 out of bounds for array of length 10 at .*column_tree\.arr:71:
-- input { 5000i64 -1i64 300i64 1i64 } error: ^division by zero at .*column_tree\.arr:72:
-- input { 5000i64 4000i64 300i64 1i64 } error: ^division by zero at .*column_tree\.arr:72:
-- input { 5000i64 300i64 4000i64 1i64 } error: ^index 310 out of bounds for array of length 10 at .*column_tree\.arr:71:
-- input { 5000i64 4999i64 4998i64 1i64 } error: ^division by zero at .*column_tree\.arr:72:
-- input { 5000i64 0i64 1i64 1i64 } error: ^index 10 out of bounds for array of length 10 at .*column_tree\.arr:71:

-- Checks before the reduction (iota of a negative size), in its
-- iterations (an early one wins, whichever chunk it is in) and after it.
entry fails (n: i64) (bad_index: i64) (bad_div: i64) (k: i64) : i64 =
  let table = iota 10
  let r = reduce (map2 (+)) (replicate 3 0)
            (map (\i -> map (\j -> if i == bad_index then table[i + 10 + j]
                                   else if i == bad_div then i / (j - j)
                                   else i * 3 + j) (iota 3)) (iota n))
  in r[k]
