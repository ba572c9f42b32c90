-- A map over a filter's result that is only reduced: one loop; the map's
-- function indexes an array and is safe only for kept elements.
-- ==
-- input { [0i64, 5i64, 2i64, -1i64, 3i64] [10i32, 20i32, 30i32, 40i32] } output { 83i32 8i32 }
entry main (is: []i64) (tbl: []i32) : (i32, i32) =
  let n = length tbl
  let ok = filter (\i -> i >= 0 && i < n) is
  let vs = map (\i -> tbl[i] + 1) ok
  in (reduce (+) 0 vs, reduce (\a b -> if a > b then a else b) 0 vs / 5)
