-- Scans of arrays over many iterations and few columns. On a GPU the
-- iterations are cut into chunks of a thread each, whose totals are
-- scanned column by column in chunk order, then each chunk runs again
-- from its prefix writing its outputs (docs/gpu.md, "Scans of arrays in
-- chunks"); few iterations or many columns keep a thread per column.

-- ==
-- entry: colscan
-- input { empty([0][3]i64) } output { empty([0][3]i64) }
-- input { empty([5][0]i64) } output { [empty([0]i64), empty([0]i64), empty([0]i64), empty([0]i64), empty([0]i64)] }
-- input { [[1i64, 2i64, 3i64]] } output { [[1i64, 2i64, 3i64]] }
-- random input { [7][3]i64 } auto output
-- random input { [3000][3]i64 } auto output
-- random input { [5000][1]i64 } auto output
-- random input { [2000][5]i64 } auto output
-- random input { [60][200]i64 } auto output
-- random input { [20000][2]i64 } auto output
-- random input { [12000][50]i64 } auto output
-- random input { [4000][0]i64 } auto output

entry colscan [m] (xss: [][m]i64) : [][m]i64 = scan (map2 (+)) (replicate m 0) xss

-- ==
-- entry: colscan4
-- random input { [5000][4]i32 } auto output
-- random input { [33][4]i32 } auto output

-- A constant width: the inner map is unrolled, no column form fits.
entry colscan4 (xss: [][4]i32) : [][4]i32 = scan (map2 (+)) (replicate 4 0) xss

-- ==
-- entry: firsts
-- input { [[7i64, 1i64], [14i64, 21i64]] } output { [[7i64, 0i64], [7i64, 21i64]] [[7i64, 0i64], [14i64, 21i64]] }
-- random input { [6000][3]i64 } auto output
-- random input { [3][5000]i64 } auto output
-- random input { [25000][2]i64 } auto output

-- Per column, the first and the last element so far divisible by 7:
-- associative, not commutative, so chunks must be combined in order; two
-- scans of one input.
entry firsts [m] (xss: [][m]i64) : ([][m]i64, [][m]i64) =
  let sparse = map (map (\x -> if x % 7 == 0 then x else 0)) xss
  in (scan (map2 (\a b -> if a != 0 then a else b)) (replicate m 0) sparse,
      scan (map2 (\a b -> if b != 0 then b else a)) (replicate m 0) sparse)

-- ==
-- entry: any_round
-- random input { [9000][5]i64 } auto output
-- random input { [100][5]i64 } auto output

-- Booleans (a byte each in memory).
entry any_round [m] (xss: [][m]i64) : [][m]bool =
  scan (map2 (||)) (replicate m false) (map (map (\x -> x % 4096 == 0)) xss)

-- ==
-- entry: suffixes
-- input { [[1i64, 2i64], [3i64, 4i64], [5i64, 6i64]] } output { [[9i64, 12i64], [8i64, 10i64], [5i64, 6i64]] }
-- random input { [3000][3]i64 } auto output

-- Right to left.
entry suffixes [m] (xss: [][m]i64) : [][m]i64 = scanr (map2 (+)) (replicate m 0) xss

-- ==
-- entry: fails
-- input { 5000i64 -1i64 -1i64 1i64 } output { 37497500i64 }
-- input { 0i64 -1i64 -1i64 1i64 } output { 0i64 }
-- input { 5000i64 -1i64 -1i64 7i64 } error: ^index 7 out of bounds for array of length 3 at .*scan_chunks\.arr:83:
-- input { 5000i64 4000i64 -1i64 1i64 } error: ^index 4010 out of bounds for array of length 10 at .*scan_chunks\.arr:80:
-- input { 5000i64 -1i64 300i64 1i64 } error: ^division by zero at .*scan_chunks\.arr:81:
-- input { 5000i64 4000i64 300i64 1i64 } error: ^division by zero at .*scan_chunks\.arr:81:
-- input { 5000i64 300i64 4000i64 1i64 } error: ^index 310 out of bounds for array of length 10 at .*scan_chunks\.arr:80:
-- input { 5000i64 4999i64 4998i64 1i64 } error: ^division by zero at .*scan_chunks\.arr:81:
-- input { 5000i64 0i64 1i64 1i64 } error: ^index 10 out of bounds for array of length 10 at .*scan_chunks\.arr:80:

-- Checks in the iterations (an early one wins, whichever chunk it is in)
-- and after the scan.
entry fails (n: i64) (bad_index: i64) (bad_div: i64) (k: i64) : i64 =
  let table = iota 10
  let s = scan (map2 (+)) (replicate 3 0)
            (map (\i -> map (\j -> if i == bad_index then table[i + 10 + j]
                                   else if i == bad_div then i / (j - j)
                                   else i * 3 + j) (iota 3)) (iota n))
  in if n == 0 then 0 else s[n - 1][k]

-- ==
-- entry: divides
-- input { 3000i64 -1i64 } auto output
-- input { 3000i64 1000i64 } error: ^division by zero at .*scan_chunks\.arr:97:
-- input { 3000i64 2500i64 } error: ^division by zero at .*scan_chunks\.arr:97:

-- A check on the scan's results (a division by a prefix sum that reaches
-- zero at row z): it depends on the carried row, so whichever kernel runs
-- it must see the true prefix.
entry divides (n: i64) (z: i64) : [n][2]i64 =
  let s = scan (map2 (+)) (replicate 2 0)
            (map (\i -> if i == z then [-(z * (z - 1) / 2) - 1, 1] else [i, 1]) (iota n))
  in map (\r -> map (\x -> 1000000 / (x + 1)) r) s
