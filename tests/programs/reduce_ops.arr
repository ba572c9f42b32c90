-- reduce with several operators and neutral elements.
-- ==
-- input { [3, 1, 4, 1, 5, 9, 2, 6] } output { 31 9 1 6480 }
-- input { empty([0]i32) } output { 0 -2147483648 2147483647 1 }

entry main (xs: []i32) : (i32, i32, i32, i32) =
  ( reduce (+) 0 xs
  , reduce (\a b -> if a > b then a else b) (-2147483647 - 1) xs
  , reduce (\a b -> if a < b then a else b) 2147483647 xs
  , reduce (*) 1 xs )
