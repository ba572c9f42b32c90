-- Sparse matrix (compressed sparse rows) times dense vector. Row i's
-- non-zeros are vals[offs[i]:offs[i+1]] in columns cols[offs[i]:offs[i+1]].
-- Rows have uneven lengths; each row is a sequential loop, the rows run in
-- parallel, and x is gathered at random. The big case (about 31 million
-- non-zeros in 2 million rows of 0 to 31 entries, 2 million columns) is
-- written by benches/baselines/gen_data.py: `random input` cannot make valid
-- row offsets, so it has no test block.
-- ==
-- input { [0i64, 2i64, 2i64, 5i64] [0, 2, 0, 1, 2] [1.0f32, 2.0f32, 3.0f32, 4.0f32, 5.0f32]
--         [1.0f32, 10.0f32, 100.0f32] }
-- output { [201.0f32, 0.0f32, 543.0f32] }
-- input { [0i64, 1i64, 1i64] [3] [1.0f32] [2.0f32, 0.5f32, 7.0f32, 4.0f32] }
-- output { [4.0f32, 0.0f32] }
entry main [n1] [nnz] [m] (offs: [n1]i64) (cols: [nnz]i32) (vals: [nnz]f32) (x: [m]f32) : []f32 =
  let n = n1 - 1
  in tabulate n (\i ->
       let start = offs[i]
       let len = offs[i + 1] - start
       in loop acc = 0.0f32 for k < len do
            acc + vals[start + k] * x[i64.i32 cols[start + k]])
