-- all, any and count with a predicate.
-- ==
-- input { [2, 4, 6] } output { true true 3i64 }
-- input { [2, 3, 6] } output { false true 2i64 }
-- input { [1, 3] } output { false false 0i64 }
-- input { empty([0]i32) } output { true false 0i64 }

def even (x: i32) = x % 2 == 0

entry main (xs: []i32) = (all even xs, any even xs, count even xs)
