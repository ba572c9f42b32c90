-- Reduction, scan and histogram operators over array operands whose
-- results are one operand picked by an `if`, or a copy of one updated in a
-- loop: the operator's parameters take their accumulator's shape, so the
-- `if`'s result has a known size (issue 22).

-- ==
-- entry: pick_row
-- input { [[3, 1, 1], [-2, 5, 6], [4, 0, 0], [-2, 7, 7]] }
-- output { [-2, 5, 6] }
-- input { empty([0][3]i32) }
-- output { [100, 0, 0] }
-- random input { [50][3]i32 }
-- auto output

entry pick_row [n] (rows: [n][3]i32) : [3]i32 =
  reduce (\a b -> if b[0] < a[0] || (b[0] == a[0] && b[1] < a[1]) then b else a)
         [100, 0, 0] rows

-- ==
-- entry: running_sums
-- input { [[[1, 2], [3, 4], [5, 6]], [[0, 1], [1, 0], [2, 2]]] }
-- output { [[[1, 2], [4, 6], [9, 12]], [[0, 1], [1, 1], [3, 3]]] }
-- random input { [6][7][5]i32 }
-- auto output

def add_in_loop [m] (xs: [m]i32) (ys: [m]i32) : [m]i32 =
  loop acc = copy xs for i < m do acc with [i] = acc[i] + ys[i]

entry running_sums [n] [k] [m] (xss: [n][k][m]i32) : [n][k][m]i32 =
  map (scan add_in_loop (replicate m 0)) xss

-- ==
-- entry: restart_scan
-- input { [false, true, false, false, true] [[1, 1], [2, 3], [4, 5], [6, 7], [8, 9]] }
-- output { [[1, 1], [2, 3], [6, 8], [12, 15], [8, 9]] }
-- random input { [40]bool [40][4]i32 }
-- auto output

entry restart_scan [n] [m] (flags: [n]bool) (xss: [n][m]i32) : [n][m]i32 =
  let pairs = scan (\(fa, a) (fb, b) -> (fa || fb, if fb then b else map2 (+) a b))
                   (false, replicate m 0) (zip flags xss)
  in map (.1) pairs

-- ==
-- entry: binned_rows
-- input { [[1, 2, 3], [4, 5, 6]] [0i64, 0i64, 2i64, 1i64, 7i64] }
-- output { [[1, 4, 7], [4, 6, 8]] }

entry binned_rows [n] [m] [k] (bins: *[n][m]i32) (is: [k]i64) : [n][m]i32 =
  reduce_by_index bins
                  (\x y -> loop acc = copy x for j < m do acc with [j] = acc[j] + y[j])
                  (replicate m 0) is
                  (replicate k (map i32.i64 (iota m)))
