-- Reductions over ranges long enough for the code generator to run each
-- chunk's loop as two halves side by side (codegen::cpu::loops,
-- `emit_split`), and over ranges around the smallest such length (128
-- iterations) and longer than a runtime block (16,384): an integer sum,
-- a sum with a branch, an f64 sum (of integers, so exact in any order), a
-- maximum, and the composition of affine maps x -> a * x + b, which is
-- associative but not commutative, so the halves must combine in order.
-- ==
-- input { 0i64 } output { 0i64 0i64 0.0f64 -1i64 1i64 0i64 }
-- input { 1i64 } output { 0i64 0i64 0.0f64 0i64 1i64 -3i64 }
-- input { 127i64 } output { 674751i64 -2583i64 8001.0f64 9930i64 7285696088444156051i64 -2223251200009422713i64 }
-- input { 128i64 } output { 690880i64 -2710i64 8128.0f64 9930i64 -465007705198322977i64 7330488073662438054i64 }
-- input { 129i64 } output { 707264i64 -2838i64 8256.0f64 9930i64 -3255053936388260839i64 -4026815705491588466i64 }
-- input { 1000i64 } output { 332833500i64 -165834i64 499500.0f64 9997i64 5333023653901680001i64 -3930346518695189177i64 }
-- input { 40000i64 } output { 21332533340000i64 -266633334i64 19980000.0f64 10006i64 -4867014211921208319i64 352383108679270140i64 }

entry main (n: i64) : (i64, i64, f64, i64, i64, i64) =
  let xs = iota n
  let (a, b) =
    reduce (\(a, b) (c, d) -> (a * c, b * c + d)) (1i64, 0i64)
           (map (\i -> (2 * (i % 5) + 1, i % 11 - 3)) xs)
  in ( reduce (+) 0 (map (\i -> i * i) xs)
     , reduce (+) 0 (map (\i -> if i % 3 == 0 then i else 0 - i) xs)
     , f64.sum (map (\i -> f64.i64 (i % 1000)) xs)
     , reduce i64.max (-1) (map (\i -> (i * 7919) % 10007) xs)
     , a
     , b )
