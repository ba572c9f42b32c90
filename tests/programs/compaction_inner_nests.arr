-- Filters, partitions and scans whose element function runs nests of its
-- own (a loop whose state is an array refilled by a map). In parallel,
-- each chunk first runs the slice of the body its count or total needs:
-- that slice must include the nests filling the arrays it reads.

def bumped (n: i64) (i: i64) : []i64 =
  loop a = replicate n i for p < 2 do map (\x -> x + p) a

-- ==
-- entry: filtered
-- input { 10i64 } output { [2i64, 5i64, 8i64] }
-- input { 1i64 } output { empty([0]i64) }
-- input { 300i64 }
entry filtered (n: i64) : []i64 =
  filter (\i -> (bumped n i)[i] % 3 == 0) (iota n)

-- ==
-- entry: parted
-- input { 10i64 } output { [2i64, 5i64, 8i64] [0i64, 1i64, 3i64, 4i64, 6i64, 7i64, 9i64] }
-- input { 300i64 }
entry parted (n: i64) : ([]i64, []i64) =
  partition (\i -> (bumped n i)[i] % 3 == 0) (iota n)

-- ==
-- entry: scanned
-- input { 12i64 } output { [1i64, 3i64, 6i64, 10i64, 10i64, 11i64, 13i64, 16i64, 20i64, 20i64, 21i64, 23i64] }
-- input { 300i64 }
entry scanned (n: i64) : []i64 =
  scan (+) 0 (map (\i -> (bumped 4 i)[0] % 5) (iota n))

-- ==
-- entry: exscanned
-- input { 6i64 } output { [0i64, 1i64, 3i64, 6i64, 10i64, 10i64] }
entry exscanned (n: i64) : []i64 =
  exscan (+) 0 (map (\i -> (bumped 4 i)[0] % 5) (iota n))
