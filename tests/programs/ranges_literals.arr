-- Ranges, character and string literals, size coercions `:>`,
-- existential sizes and size expressions in types.

-- ==
-- entry: ranges
-- input { 5 }
-- output { [0, 1, 2, 3, 4] [1, 2, 3, 4, 5] [5, 4, 3, 2, 1] [0, 2, 4] [5, 3, 1] [0i64, 3i64] }
entry ranges (n: i32) : ([]i32, []i32, []i32, []i32, []i32, []i64) =
  (0..<n, 1...n, n..>0, 0..2...n, n..n-2..>0, 0..3..<5)

-- An invalid range stops with Futhark's message, which names its values.

-- ==
-- entry: ranges
-- input { -1 }
-- error: ^Range 0\.\.<-1 is invalid at .*ranges_literals\.arr:9:

-- ==
-- entry: stepped
-- input { 1i64 3i64 9i64 } output { 16i64 25i64 10i64 }
-- input { 2i64 2i64 -8i64 } error: ^Range 2\.\.2\.\.<-8 is invalid at .*ranges_literals\.arr:33:
-- input { 1i64 0i64 5i64 } error: ^Range 1\.\.0\.\.<5 is invalid at .*ranges_literals\.arr:33:

-- ==
-- entry: inclusive
-- input { 1i64 0i64 5i64 } error: ^Range 1\.\.0\.\.\.5 is invalid at .*ranges_literals\.arr:34:

-- ==
-- entry: downwards
-- input { 3i64 } error: ^Range 0\.\.>3 is invalid at .*ranges_literals\.arr:35:

entry stepped (a: i64) (b: i64) (c: i64) : (i64, i64, i64) =
  (i64.sum (a..b..<c), i64.sum (a..b...c), i64.sum ((c - 5)..>0))
entry inclusive (a: i64) (b: i64) (c: i64) : i64 = i64.sum (a..b...c)
entry downwards (c: i64) : i64 = i64.sum (0..>c)

-- `a..b` is the language contract's spelling of the inclusive `a...b`.
-- ==
-- entry: two_dot
-- input { 2 5 }
-- output { [2, 3, 4, 5] [2, 3, 4, 5] [3, 5, 7] }
-- input { 5 2 }
-- error: Error
entry two_dot (a: i32) (b: i32) : ([]i32, []i32, []i32) =
  (a..b, a...b, a+1..a+3...b+2)

-- ==
-- entry: chars
-- input { }
-- output { [104u8, 105u8, 10u8, 34u8] 97 [0u8] }
entry chars : ([]u8, i32, []u8) = ("hi\n\"", 'a', "\0")

def grow [n] (xs: [n]i32) : [n+1]i32 = xs ++ [0] :> [n+1]i32

def positives (xs: []i32) : ?[m].[m]i32 = filter (> 0) xs

-- ==
-- entry: sizes
-- input { [3, -1, 4] }
-- output { [3, -1, 4, 0] [3, 4] 2i64 }
entry sizes (xs: []i32) : ([]i32, []i32, i64) =
  let ys = positives xs
  let [m] (zs: [m]i32) = ys
  in (grow xs, zs, m)

-- ==
-- entry: coerce_fails
-- input { [1, 2] 3i64 }
-- error: Error
entry coerce_fails (xs: []i32) (n: i64) : []i32 = xs :> [n]i32

-- A string literal as an input value of a `[]u8` parameter, as Futhark's
-- values allow: its UTF-8 bytes, with the escapes of the language's string
-- literals; also in rows of a `[][]u8`.

-- ==
-- entry: digits
-- input { "12" } output { 12i64 2i64 }
-- input { "" } output { 0i64 0i64 }

entry digits (s: []u8) : (i64, i64) =
  (foldl (\acc c -> acc * 10 + i64.u8 (c - '0')) 0 s, length s)

-- ==
-- entry: rows
-- input { ["ab", "cd"] } output { [[97u8, 98u8], [99u8, 100u8]] }
-- input { ["a\"\\\n"] } output { [[97u8, 34u8, 92u8, 10u8]] }

entry rows (s: [][]u8) : [][]u8 = s
