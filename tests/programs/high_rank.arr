-- Entry points take and return arrays of any rank (up to the binary value
-- format's 255): rank 9 in, rank 10 out, and rank 12 through.
-- ==
-- input { [[[[[[[[[1, 2]]]]]]]]] }
-- output { [[[[[[[[[[2, 4]]]]]]]]], [[[[[[[[[2, 4]]]]]]]]]] 3 }
-- input { empty([1][1][1][1][1][1][1][1][0]i32) }
-- output { empty([2][1][1][1][1][1][1][1][1][0]i32) 0 }

entry main (a: [][][][][][][][][]i32) : ([][][][][][][][][][]i32, i32) =
  let twice = map (map (map (map (map (map (map (map (map (* 2)))))))))
  in ([twice a, twice a],
      reduce (+) 0 (flatten (flatten (flatten (flatten (flatten (flatten (flatten (flatten a)))))))))

-- ==
-- entry: through
-- input { [[[[[[[[[[[[true]]]]]]]]]]]] } output { [[[[[[[[[[[[true]]]]]]]]]]]] }

entry through (a: [][][][][][][][][][][][]bool) : [][][][][][][][][][][][]bool = a
