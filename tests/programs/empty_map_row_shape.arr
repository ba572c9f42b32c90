-- Found by `arrc random` (seed 5152). A map over an empty array whose rows
-- have a constant length (1) keeps that length, as Futhark's sizes say:
-- empty([0][1]i32). The interpreter finds row shapes by a trial run of the
-- function on rows of zeros; that run looks for shapes only, so the size
-- mismatch it meets (dot of lengths 1 and 0) does not stop it.
-- ==
-- input { empty([0]i8) } output { empty([0][1]i32) }

entry main (in3: []i8) : ([][]i32) =
  map (\_ -> tabulate 1i64 (\_ -> dot (tabulate 1i64 (\_ -> 0i32)) (tabulate 0i64 (\_ -> 0i32)))) in3
