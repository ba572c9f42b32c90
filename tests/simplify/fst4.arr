-- Only the first column of an array of 4-tuples is read (seed 004): the
-- other three columns are neither built nor loaded.
-- nodes: map=1 assert_eq_sizes=3
-- ==
-- input { [1.0f32, 2.0f32] [3.0f32, 4.0f32] [5.0f32, 6.0f32] [7.0f32, 8.0f32] }
-- output { [2.0f32, 4.0f32] }

entry main (as: []f32) (bs: []f32) (cs: []f32) (ds: []f32) : []f32 =
  let ps = map4 (\a b c d -> (a, b, c, d)) as bs cs ds
  in map (\p -> p.0 * 2.0f32) ps
