-- Sequential `for` loops whose reads are `xs[c + k]` with `c` the same in
-- every iteration (a CSR row) run without those reads' checks when one
-- test before the loop proves them in range (`Gen::seq_loop`); otherwise
-- the checked loop reports the first bad index, as a sequential run does.
-- ==
-- input { [0i64, 2i64, 2i64, 5i64] [0, 2, 0, 1, 2] [1.0f32, 2.0f32, 3.0f32, 4.0f32, 5.0f32]
--         [1.0f32, 10.0f32, 100.0f32] }
-- output { [201.0f32, 0.0f32, 543.0f32] }
-- input { [0i64, 2i64, 6i64] [0, 2, 0, 1, 2] [1.0f32, 2.0f32, 3.0f32, 4.0f32, 5.0f32]
--         [1.0f32, 10.0f32, 100.0f32] }
-- error: index 5 out of bounds
-- input { [-1i64, 2i64] [0, 2, 0] [1.0f32, 2.0f32, 3.0f32] [1.0f32, 10.0f32, 100.0f32] }
-- error: index -1 out of bounds
-- input { [0i64, 2i64] [0, 3] [1.0f32, 2.0f32] [1.0f32, 10.0f32, 100.0f32] }
-- error: index 3 out of bounds
-- input { [9223372036854775807i64, 9223372036854775807i64] [0] [1.0f32] [1.0f32] }
-- output { [0.0f32] }

entry main [n1] [nnz] [m] (offs: [n1]i64) (cols: [nnz]i32) (vals: [nnz]f32) (x: [m]f32) : []f32 =
  tabulate (n1 - 1) (\i ->
    let start = offs[i]
    let len = offs[i + 1] - start
    in loop acc = 0.0f32 for k < len do
         acc + vals[start + k] * x[i64.i32 cols[start + k]])

-- A window read at a fixed offset and an invariant element, in a loop
-- that also reads past the end on its last iteration when `extra` is 1.
-- ==
-- entry: window
-- input { [1, 2, 3, 4, 5, 6] 2i64 3i64 0i64 } output { 12 }
-- input { [1, 2, 3, 4, 5, 6] 4i64 3i64 0i64 } error: index 6 out of bounds
-- input { [1, 2, 3, 4, 5, 6] 0i64 0i64 0i64 } output { 0 }
-- input { [1, 2, 3, 4, 5, 6] 0i64 2i64 9i64 } error: index 9 out of bounds

entry window (xs: []i32) (c: i64) (len: i64) (j: i64) : i32 =
  loop acc = 0 for k < len do acc + xs[k + c] + xs[j] * 0

-- `cols` and `vals` of different lengths share the offset `start`: the one
-- test per offset is against the shorter, so a row that runs past either
-- takes the checked loop and reports that array's first bad index.
-- ==
-- entry: uneven
-- input { [0i64, 2i64, 4i64] [0, 1, 2, 0] [1.0f32, 2.0f32, 3.0f32, 4.0f32, 5.0f32]
--         [1.0f32, 10.0f32, 100.0f32] }
-- output { [21.0f32, 304.0f32] }
-- input { [0i64, 2i64, 5i64] [0, 1, 2, 0] [1.0f32, 2.0f32, 3.0f32, 4.0f32, 5.0f32]
--         [1.0f32, 10.0f32, 100.0f32] }
-- error: index 4 out of bounds
-- input { [0i64, 2i64, 4i64] [0, 1, 2, 0, 1] [1.0f32, 2.0f32, 3.0f32]
--         [1.0f32, 10.0f32, 100.0f32] }
-- error: index 3 out of bounds

entry uneven [n1] [a] [b] [m] (offs: [n1]i64) (cols: [a]i32) (vals: [b]f32) (x: [m]f32) : []f32 =
  tabulate (n1 - 1) (\i ->
    let start = offs[i]
    let len = offs[i + 1] - start
    in loop acc = 0.0f32 for k < len do
         acc + vals[start + k] * x[i64.i32 cols[start + k]])
