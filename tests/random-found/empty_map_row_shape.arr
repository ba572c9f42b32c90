-- Found by `arrc random` (seed 5152, shrunk automatically). A map over an
-- empty array whose rows have a constant length (1) prints as
-- empty([0][0]i32) on the interpreter and empty([0][1]i32) compiled
-- (-O0, ilp). Futhark keeps the row length of the type, [0][1]: the
-- interpreter, which never runs the lambda, loses it. (The lambda would
-- fail if it ran: dot of lengths 1 and 0.)
-- ==
-- input { empty([0]i8) } output { empty([0][1]i32) }

entry main (in3: []i8) : ([][]i32) =
  map (\_ -> tabulate 1i64 (\_ -> dot (tabulate 1i64 (\_ -> 0i32)) (tabulate 0i64 (\_ -> 0i32)))) in3
