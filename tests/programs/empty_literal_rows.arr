-- An empty array literal `[]` of rank 2 or more has the row shape its
-- type gives it, as in Futhark: `[] : [0][n]t` has rows of `n` elements,
-- through a return type, a `let` ascription, tuples and size expressions.

def rows (d: i64) : [0][d]i32 = []

def pair 'a (x: i64) = (x, [] : [0]a)

-- ==
-- entry: returned
-- input { 3i64 } output { empty([0][3]i32) 3i64 }
-- input { 0i64 } output { empty([0][0]i32) 0i64 }

entry returned (d: i64) : ([][]i32, i64) =
  let e = rows d
  in (e, length (transpose e))

-- ==
-- entry: nested
-- input { 2i64 } output { empty([0][2][2]f32) empty([0][2][2][3]bool) empty([0][3]i64) }

entry nested (d: i64) : ([][][]f32, [][][][]bool, [][]i64) =
  let z : [0][2][d](f32, [3]bool) = []
  let w : [0][d + 1]i64 = []
  in (map (map (map (.0))) z, map (map (map (.1))) z, w)

-- ==
-- entry: inferred
-- input { 2i64 } output { 2i64 empty([0][2]i32) }

entry inferred (x: i64) : (i64, [][x]i32) = pair x

-- Row sizes a tuple's or a record's field gives (`[s.0]`, `[r.cols]`), and
-- arrays of units, whose rows are sized as any others (Futhark's type-level
-- sizes, `type eq [n] [m] = [0][n][m]()`).

def by_field (s: (i64, i64)) : [0][s.0][s.1]i32 = []

def by_record (r: {rows: i64, cols: i64}) : [0][r.cols]bool = []

def units (n: i64) (m: i64) : [0][n][m]() = []

-- ==
-- entry: fields
-- input { 2i64 3i64 }
-- output { empty([0][2][3]i32) empty([0][3]bool) 2i64 3i64 }

entry fields (a: i64) (b: i64) : ([][][]i32, [][]bool, i64, i64) =
  let [x][y] (_: [0][x][y]()) = units a b
  in (by_field (a, b), by_record {rows = a, cols = b}, x, y)
