-- A failed `assert` reports its condition as written after its location
-- (Futhark's `Assertion is false: COND`): white space as one space, one
-- pair of enclosing parentheses dropped. Compiled, every backend reports
-- the interpreter's message: the first failure in sequential order, with
-- that assertion's own text, in map, reduce, scan, hist, scatter and loop
-- bodies.

-- ==
-- entry: in_map
-- input { [1, 2, 3] } output { [2, 4, 6] }
-- input { [1, -1, 7, 2] } error: ^assertion failed at .*assert_condition\.arr:18:31: Assertion is false: x > 0$
-- input { [1, 7, -1, 2] } error: ^assertion failed at .*assert_condition\.arr:18:14: Assertion is false: x != 7$
-- input { [1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, -1, 7] } error: ^assertion failed at .*assert_condition\.arr:18:31: Assertion is false: x > 0$
-- input { [1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 7, -1] } error: Assertion is false: x != 7$

-- Each element checks `x != 7`, then `x > 0`.
entry in_map (xs: []i32) : []i32 =
  map (\x -> assert (x != 7) (assert (x > 0) (x * 2))) xs

-- ==
-- entry: in_reduce
-- input { 100i64 10i64 } output { 45i64 }
-- input { 100i64 20i64 } error: ^assertion failed at .*assert_condition\.arr:27:19: Assertion is false: a \+ b <= lim$
-- input { 1000000i64 5000i64 } error: Assertion is false: a \+ b <= lim$

entry in_reduce (lim: i64) (n: i64) : i64 =
  reduce (\a b -> assert (a + b <= lim) (a + b)) 0 (iota n)

-- ==
-- entry: in_scan
-- input { 100i64 10i64 } output { [0i64, 1i64, 3i64, 6i64, 10i64, 15i64, 21i64, 28i64, 36i64, 45i64] }
-- input { 100i64 20i64 } error: ^assertion failed at .*assert_condition\.arr:36:17: Assertion is false: a \+ b <= lim$
-- input { 1000000i64 5000i64 } error: Assertion is false: a \+ b <= lim$

entry in_scan (lim: i64) (n: i64) : []i64 =
  scan (\a b -> assert (a + b <= lim) (a + b)) 0 (iota n)

-- ==
-- entry: in_hist
-- input { 1000i64 30i64 } output { [135i64, 145i64, 155i64] }
-- input { 1000i64 100i64 } error: ^assertion failed at .*assert_condition\.arr:45:17: Assertion is false: a \+ b < lim$
-- input { 1000i64 5000i64 } error: Assertion is false: a \+ b < lim$

entry in_hist (lim: i64) (n: i64) : []i64 =
  hist (\a b -> assert (a + b < lim) (a + b)) 0 3 (map (% 3) (iota n)) (iota n)

-- ==
-- entry: in_scatter
-- input { [0i64, 2i64] [5, 6] } output { [5, 0, 6, 0] }
-- input { [0i64, 4i64, -1i64] [5, 6, 7] } error: ^assertion failed at .*assert_condition\.arr:55:39: Assertion is false: i >= 0 && i < 4$
-- input { [0i64, 1i64, 2i64] [5, -6, 7] } error: ^assertion failed at .*assert_condition\.arr:56:23: Assertion is false: v >= 0$

-- The checks of indices and values fuse into the scatter.
entry in_scatter (is: []i64) (vs: []i32) : []i32 =
  scatter (replicate 4 0) (map (\i -> assert (i >= 0 && i < 4) i) is)
          (map (\v -> assert (v >= 0) v) vs)

-- ==
-- entry: in_loop
-- input { 10i64 [1i64, 2i64] } output { [10i64, 20i64] }
-- input { 10i64 [1i64, 2i64, 0i64, -1i64, -2i64] } error: ^assertion failed at .*assert_condition\.arr:68:17: Assertion is false: acc <= 10 \* k$

-- A loop in every element of a map, its body asserting on its state: the
-- condition written over two lines reads as one.
entry in_loop (n: i64) (ks: []i64) : []i64 =
  map (\k -> loop acc = 0 for _i < n do
             let acc = acc + k
             in assert (acc <=
                        10 * k) acc) ks
