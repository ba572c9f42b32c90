-- The loop's two results are one array made in its body, so the
-- result declared unique would hold it twice.
entry main (n: i64) : (*[]i64, *[]i64) =
  let (a, b) =
    loop (p, q) = (iota 4, iota 4)
    for i < n do
      let fresh = map (+ i) p
      in (fresh, fresh)
  in (a, b)
