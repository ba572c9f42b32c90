-- Histogram equalisation of a grey image: `hist`, a `scan` for the
-- cumulative histogram, and a lookup per pixel (issue 20; timed against
-- histeq.c by run.py).
-- ==
-- input { [0u8, 0u8, 128u8, 255u8] }
-- output { [0u8, 0u8, 127u8, 255u8] }
-- random input { [100]u8 } auto output

-- ==
-- random input { [20000000]u8 }
-- tags { bench }

entry main [n] (img: [n]u8) : [n]u8 =
  let h = hist (+) 0i64 256 (map i64.u8 img) (replicate n 1)
  let cdf = scan (+) 0 h
  let cmin = reduce i64.min i64.highest (map (\c -> if c > 0 then c else i64.highest) cdf)
  in map (\p -> u8.i64 ((cdf[i64.u8 p] - cmin) * 255 / i64.max 1 (n - cmin))) img
