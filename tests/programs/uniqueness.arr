-- Uniqueness types: parameters declared `*` may be updated in place, and
-- `let a[i] = v` updates one element.

def set_first (xs: *[]i32) (v: i32) : *[]i32 =
  let xs[0] = v
  in xs

def swap (i: i64) (j: i64) (xs: *[]f32) : *[]f32 =
  let (a, b) = (xs[i], xs[j])
  let xs[i] = b
  let xs[j] = a
  in xs

-- ==
-- entry: updates
-- input { [1, 2, 3] }
-- output { [9, 2, 3] [[0, 7], [0, 0]] }
entry updates (xs: *[]i32) : ([]i32, [][]i32) =
  let m = replicate 2 (replicate 2 0)
  let m[0, 1] = 7
  in (set_first xs 9, m)

-- ==
-- entry: loops
-- input { [1f32, 2f32, 3f32, 4f32] }
-- output { [4f32, 3f32, 2f32, 1f32] }
entry loops (xs: *[]f32) : []f32 =
  let n = length xs
  in loop xs for i < n / 2 do swap i (n - 1 - i) xs

-- A copy keeps the original usable.
-- ==
-- entry: copies
-- input { [1, 2] }
-- output { [5, 2] [1, 2] }
entry copies (xs: []i32) : ([]i32, []i32) =
  let ys = set_first (copy xs) 5
  in (ys, xs)

-- A call's result aliases the arguments the function may return, so
-- updating it in place consumes them: fine for a local array not used
-- again. `copy` and results of SOACs are fresh; names bound from a tuple
-- written out alias only their own component.
def firsts (xs: []i32) : []i32 = xs[:2]

-- ==
-- entry: aliases
-- input { [1, 2, 3] }
-- output { [7, 2] [8, 4] [1, 2, 3] }
entry aliases (xs: []i32) : ([]i32, []i32, []i32) =
  let a = map (+ 0) xs
  let ys = firsts a
  let ys[0] = 7
  let (p, q) = (copy xs, map (* 2) xs)
  let q[0] = 8
  in (ys, q[:2], p)

-- The components of a loop's or a call's result may share memory (`(r,
-- r)`): using both is fine, only consuming one of them ends the other.
-- Unique loop parameters may swap their arrays each iteration, and a
-- function whose type declares its parameter `*` may be given one that
-- consumes it.
def both (n: i64) : ([]i64, []i64) =
  let r = iota n
  in (r, r)

def apply_unique (f: *[]i64 -> i64) (xs: *[]i64) : i64 = f xs

def bump (xs: *[]i64) : i64 =
  let xs[0] = xs[0] + 100
  in xs[0]

-- ==
-- entry: shared_results
-- input { 3i64 }
-- output { [0i64, 1i64, 2i64] [0i64, 1i64, 2i64] [3i64, 4i64, 5i64] [5i64, 4i64, 3i64] 100i64 }
entry shared_results (n: i64) : ([]i64, []i64, []i64, []i64, i64) =
  let (a, b) = both n
  let (c, d) =
    loop (p, q) = (iota n, iota n)
    for i < 2 do
      let fresh = map (+ 1) q
      in if i == 0 then (fresh, fresh) else (map (+ 1) p, reverse fresh)
  let (e, f) =
    loop (xs: *[]i64, ys: *[]i64) = (map (+ 2) (iota n), map (+ 3) (iota n))
    for _i < 3 do (ys, xs)
  in (a, b, map (+ 1) c, map (+ 1) d, apply_unique bump (copy a) + 0 * e[0] * f[0])
