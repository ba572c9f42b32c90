-- Collatz step counts: a `loop ... while` per element, of varying trip
-- count (issue 20; timed against collatz.c by run.py).
-- ==
-- input { 8i64 }
-- output { [0i32, 1i32, 7i32, 2i32, 5i32, 8i32, 16i32, 3i32] }

-- ==
-- input { 500000i64 }
-- tags { bench }

entry main (n: i64) : [n]i32 =
  map (\x ->
         let (_, steps) =
           loop (y, s) = (x + 1, 0i32) while y != 1 do
             (if y % 2 == 0 then y / 2 else 3 * y + 1, s + 1)
         in steps)
      (iota n)
