-- Histograms over the same indices fuse into one loop nest. Each keeps its
-- own number of bins, and each is updated correctly however the nest runs:
-- private bins per thread, atomic updates, or one thread.

-- ==
-- entry: one_and_two
-- input { [0i64, 1i64, 0i64, 1i64, 0i64, 1i64, 0i64, 1i64, 0i64, 1i64,
--          0i64, 1i64, 0i64, 1i64, 0i64, 1i64, 0i64, 1i64, 0i64, 1i64,
--          0i64, 1i64, 0i64, 1i64, 0i64, 1i64, 0i64, 1i64, 0i64, 1i64,
--          0i64, 1i64, 0i64, 1i64, 0i64, 1i64, 0i64, 1i64, 0i64, 1i64] }
-- output { [20] [20, 20] }

entry one_and_two (is: []i64) : ([]i32, []i32) =
  (hist (+) 0 1 is (map (\_ -> 1) is), hist (+) 0 2 is (map (\_ -> 1) is))

-- A histogram without bins beside one with bins: the second keeps every
-- update.
-- ==
-- entry: empty_beside
-- input { [0i64, 1i64, 2i64, 1i64, 0i64, 1i64, 2i64, 1i64, 0i64, 1i64,
--          2i64, 1i64, 0i64, 1i64, 2i64, 1i64, 0i64, 1i64, 2i64, 1i64] }
-- output { empty([0]i32) [5, 10, 5] }

entry empty_beside (is: []i64) : ([]i32, []i32) =
  let none = hist (+) 0 0 is (map (\_ -> 1) is)
  let counts = reduce_by_index (replicate 3 0) (+) 0 is (map (\_ -> 1) is)
  in (none, counts)

-- Many bins next to the work (atomic updates) in the first histogram, few
-- in the second: every update of both arrives.
-- ==
-- entry: many_and_few
-- input { 200000i64 } output { 200000 200000 4 28572 }

entry many_and_few (n: i64) : (i32, i32, i32, i32) =
  let is = iota n
  let many = hist (+) 0 50000 (map (\i -> i % 50000) is) (map (\_ -> 1) is)
  let few = hist (+) 0 7 (map (\i -> i % 7) is) (map (\_ -> 1i32) is)
  in (i32.sum many, i32.sum few, i32.maximum many, i32.maximum few)

-- Histograms of pairs: two arrays of bins that change together.
-- ==
-- entry: pairs
-- input { 100000i64 } output { 100000 4999950000i64 100000 }

entry pairs (n: i64) : (i32, i64, i32) =
  let is = map (\i -> i % 30000) (iota n)
  let (cs, ss) = unzip (hist (\(a, b) (c, d) -> (a + c, b + d)) (0i32, 0i64) 30000 is
                                  (map (\i -> (1i32, i)) (iota n)))
  let few = hist (+) 0 3 (map (\i -> i % 3) (iota n)) (map (\_ -> 1i32) (iota n))
  in (i32.sum cs, i64.sum ss, i32.sum few)
