-- The body returns `spare`, so from the second iteration on `acc` aliases
-- `spare`, and updating `acc` in place consumes `spare`.
entry main (n: i64) : i64 =
  let spare = iota 10
  let acc =
    loop acc = iota 10 for i < n do
      let acc[i] = 0
      in spare
  in acc[0] + spare[0]
