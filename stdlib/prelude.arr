-- The Arr standard library, available in every program without an import.
-- A program's own definition of the same name shadows these. Every function
-- is inlined at its use and checked for the element type used there, so the
-- numeric ones work on any numeric type. `t.lowest`, `t.max`, `t.i64` ...
-- name the members of the scalar module of the type parameter `t`.

-- Reductions ---------------------------------------------------------------

def sum 't [n] (xs: [n]t) : t = reduce (+) 0 xs

def product 't [n] (xs: [n]t) : t = reduce (*) 1 xs

-- `t.lowest` for an empty array, as in Futhark.
def maximum 't [n] (xs: [n]t) : t = reduce t.max t.lowest xs

-- `t.highest` for an empty array.
def minimum 't [n] (xs: [n]t) : t = reduce t.min t.highest xs

-- Integer types divide rounding down; an empty array divides by zero.
def mean 't [n] (xs: [n]t) : t = sum xs / t.i64 n

-- The index of the first largest element; -1 for an empty array (the
-- neutral pair's index). `reduce` combines in order (its operator need only
-- be associative), so `b` comes after `a` and a strict comparison keeps the
-- first on ties. Element 0 is always taken (even a NaN, which then stays,
-- as in a sequential run); any other element only when strictly better, so
-- a chunk or lane that starts from the neutral pair at a later index skips
-- NaNs and elements equal to the neutral value, which element 0 beats
-- anyway. (`i < 0 || b > a` took a NaN that started a later chunk, and the
-- rest of that chunk was lost.) `i < 0 && j < 1` is `j == 0` on what a
-- reduction meets (element 0 comes first, against the neutral pair; the
-- neutral's `j` is -1): `j == 0` alone is peeled off the chunk loop, whose
-- rest is then one `maxsd` chain (1.2-1.35x slower on a large array), and
-- a test of `j` alone in a search jammed across points (k-means) leaves
-- the lanes' index selects scalar; with the accumulator's `i < 0` they
-- stay one vector select. The map producing `xs` fuses into the reduction.
def argmax 't [n] (xs: [n]t) : i64 =
  let best (a: t, i: i64) (b: t, j: i64) =
    if (i < 0 && j < 1) || b > a then (b, j) else (a, i)
  let (_, i) = reduce best (t.lowest, -1) (zip xs (iota n))
  in i

-- The index of the first smallest element; -1 for an empty array. As
-- `argmax`, with `<`.
def argmin 't [n] (xs: [n]t) : i64 =
  let best (a: t, i: i64) (b: t, j: i64) =
    if (i < 0 && j < 1) || b < a then (b, j) else (a, i)
  let (_, i) = reduce best (t.highest, -1) (zip xs (iota n))
  in i

def all 't [n] (p: t -> bool) (xs: [n]t) : bool = reduce (&&) true (map p xs)

def any 't [n] (p: t -> bool) (xs: [n]t) : bool = reduce (||) false (map p xs)

def count 't [n] (p: t -> bool) (xs: [n]t) : i64 =
  reduce (+) 0 (map (\x -> if p x then 1i64 else 0i64) xs)

-- Linear algebra -------------------------------------------------------------

def dot 't [n] (xs: [n]t) (ys: [n]t) : t = reduce (+) 0 (map2 (*) xs ys)

def matmul 't [n] [m] [p] (a: [n][m]t) (b: [m][p]t) : [n][p]t =
  let bt = transpose b
  in map (\row -> map (\col -> dot row col) bt) a

def outer 't [n] [m] (xs: [n]t) (ys: [m]t) : [n][m]t =
  map (\x -> map (\y -> x * y) ys) xs

-- Slicing --------------------------------------------------------------------

-- The first `k` elements (an error if `k` is out of range).
def take 't [n] (k: i64) (xs: [n]t) : []t = xs[:k]

-- All but the first `k` elements (an error if `k` is out of range).
def drop 't [n] (k: i64) (xs: [n]t) : []t = xs[k:]

-- Scans ----------------------------------------------------------------------

-- Exclusive scan: element `i` combines `xs[0..i)`, so the first is `ne`.
def exscan 't [n] (op: t -> t -> t) (ne: t) (xs: [n]t) : [n]t =
  let inclusive = scan op ne xs
  in map (\i -> if i == 0 then ne else inclusive[i - 1]) (iota n)

-- An inclusive scan that restarts where `flags` is true (and at the start).
def segmented_scan 't [n] (op: t -> t -> t) (ne: t) (flags: [n]bool) (xs: [n]t) : [n]t =
  let step (fa: bool, a: t) (fb: bool, b: t) = (fa || fb, if fb then b else op a b)
  let (_, ys) = unzip (scan step (false, ne) (zip flags xs))
  in ys

-- One value per segment (a segment starts where `flags` is true, and at the
-- start): the last element of each segment's scan.
def segmented_reduce 't [n] (op: t -> t -> t) (ne: t) (flags: [n]bool) (xs: [n]t) : []t =
  let scanned = segmented_scan op ne flags xs
  let ends = map (\i -> i == n - 1 || flags[i + 1]) (iota n)
  let (_, rs) = unzip (filter (\(e, _) -> e) (zip ends scanned))
  in rs

-- Sorting --------------------------------------------------------------------

-- Stable least-significant-bit-first radix sort on bits `0 .. num_bits-1`
-- as given by `get_bit bit x` (0 or 1).
def radix_sort 't [n] (num_bits: i32) (get_bit: i32 -> t -> i32) (xs: [n]t) : [n]t =
  loop ys = xs for b < num_bits do
    let (zeros, ones) = partition (\x -> get_bit b x == 0) ys
    in zeros ++ ones

-- Stencils -------------------------------------------------------------------

-- `f` applied to the `2r+1` neighbours of every element, indices clamped to
-- the array.
def stencil_1d 'a 'b [n] (r: i64) (f: []a -> b) (xs: [n]a) : [n]b =
  let clamp (k: i64) = i64.min (n - 1) (i64.max 0 k)
  in tabulate n (\i -> f (tabulate (2 * r + 1) (\k -> xs[clamp (i + k - r)])))

-- `f` applied to the `(2r+1)x(2r+1)` window around every element, indices
-- clamped to the array.
def stencil_2d 'a 'b [n] [m] (r: i64) (f: [][]a -> b) (g: [n][m]a) : [n][m]b =
  let w = 2 * r + 1
  let clamp (k: i64) (len: i64) = i64.min (len - 1) (i64.max 0 k)
  in tabulate_2d n m (\i j ->
       f (tabulate_2d w w (\di dj -> g[clamp (i + di - r) n, clamp (j + dj - r) m])))

-- Futhark's prelude ----------------------------------------------------------
-- Not in the contract's list; here so that Futhark programs read as they do
-- there.

def id 't (x: t) : t = x

def const 'a 'b (x: a) (_: b) : a = x

def flip 'a 'b 'c (f: a -> b -> c) (y: b) (x: a) : c = f x y

-- Function composition, as in Futhark: `f >-> g` applies `f` then `g`;
-- `g <-< f` is the same function.
def (>->) 'a 'b 'c (f: a -> b) (g: b -> c) (x: a) : c = g (f x)

def (<-<) 'a 'b 'c (g: b -> c) (f: a -> b) (x: a) : c = g (f x)

def curry 'a 'b 'c (f: (a, b) -> c) (x: a) (y: b) : c = f (x, y)

def uncurry 'a 'b 'c (f: a -> b -> c) (x: a, y: b) : c = f x y

-- Arrays have value semantics, so a copy is the array itself.
def copy 't (x: t) : t = x

def not (x: bool) : bool = !x

def and [n] (xs: [n]bool) : bool = all id xs

def or [n] (xs: [n]bool) : bool = any id xs

def indices 't [n] (xs: [n]t) : [n]i64 = iota n

-- The first element (an error on an empty array).
def head 't [n] (xs: [n]t) : t = xs[0]

-- The last element (an error on an empty array).
def last 't [n] (xs: [n]t) : t = xs[n - 1]

-- All but the first element (an error on an empty array).
def tail 't [n] (xs: [n]t) : []t = xs[1:]

-- All but the last element (an error on an empty array).
def init 't [n] (xs: [n]t) : []t = xs[:n - 1]

-- The first `i` elements and the rest.
def split 't [n] (i: i64) (xs: [n]t) : ([]t, []t) = (xs[:i], xs[i:])

-- Left fold, sequential: `f (... (f acc xs[0]) ...) xs[n-1]`.
def foldl 'a 'b [n] (f: a -> b -> a) (acc: a) (xs: [n]b) : a =
  loop acc for x in xs do f acc x

-- Right fold, sequential: `f xs[0] (... (f xs[n-1] acc))`.
def foldr 'a 'b [n] (f: b -> a -> a) (acc: a) (xs: [n]b) : a =
  loop acc for x in reverse xs do f x acc

-- `f` applied `n` times.
def iterate 'a (n: i32) (f: a -> a) (x: a) : a =
  loop x for _i < n do f x

-- `f` applied while `p` holds.
def iterate_while 'a (p: a -> bool) (f: a -> a) (x: a) : a =
  loop x while p x do f x

-- `f` applied until `p` holds.
def iterate_until 'a (p: a -> bool) (f: a -> a) (x: a) : a =
  loop x while !(p x) do f x

def flatten_3d 't [n] [m] [l] (xs: [n][m][l]t) : []t = flatten (flatten xs)

def unflatten_3d 't (n: i64) (m: i64) (l: i64) (xs: []t) : [n][m][l]t =
  unflatten n m (unflatten (n * m) l xs)

-- More of Futhark's prelude ----------------------------------------------------

def map1 'a 'b [n] (f: a -> b) (xs: [n]a) : [n]b = map f xs

def zip2 'a 'b [n] (xs: [n]a) (ys: [n]b) : [n](a, b) = zip xs ys

def unzip2 'a 'b [n] (xys: [n](a, b)) : ([n]a, [n]b) = unzip xys

def null 't [n] (_: [n]t) : bool = n == 0

-- Arrays have value semantics: what Futhark makes manifest already is.
def manifest 't (x: t) : t = x

-- `xs` with its size stated as `n`: a size mismatch unless it is.
def sized 't [m] (n: i64) (xs: [m]t) : [n]t = (unflatten 1 n xs)[0]

def flatten_4d 't [n] [m] [l] [k] (xs: [n][m][l][k]t) : []t = flatten (flatten_3d xs)

def unflatten_4d 't (n: i64) (m: i64) (l: i64) (k: i64) (xs: []t) : [n][m][l][k]t =
  unflatten n m (unflatten_3d (n * m) l k xs)

-- A `k`-element array of `x` with `vs[j]` written at `is[j]` (indices out
-- of range ignored).
def spread 't [n] (k: i64) (x: t) (is: [n]i64) (vs: [n]t) : [k]t =
  scatter (replicate k x) is vs

-- `scatter` on a 2-D array: `vs[j]` at row `is[j].0`, column `is[j].1`.
def scatter_2d 't [k] [m] [n] (dest: [k][m]t) (is: [n](i64, i64)) (vs: [n]t) : [k][m]t =
  let flat (i: i64, j: i64) = if i >= 0 && i < k && j >= 0 && j < m then i * m + j else -1
  in unflatten k m (scatter (flatten dest) (map flat is) vs)

def scatter_3d 't [k] [m] [l] [n] (dest: [k][m][l]t) (is: [n](i64, i64, i64)) (vs: [n]t) : [k][m][l]t =
  let flat (i: i64, j: i64, h: i64) =
    if i >= 0 && i < k && j >= 0 && j < m && h >= 0 && h < l then (i * m + j) * l + h else -1
  in unflatten_3d k m l (scatter (flatten_3d dest) (map flat is) vs)

-- `reduce_by_index` on a 2-D array of bins.
def reduce_by_index_2d 'a [k] [m] [n] (dest: [k][m]a) (f: a -> a -> a) (ne: a)
                       (is: [n](i64, i64)) (vs: [n]a) : [k][m]a =
  let flat (i: i64, j: i64) = if i >= 0 && i < k && j >= 0 && j < m then i * m + j else -1
  in unflatten k m (reduce_by_index (flatten dest) f ne (map flat is) vs)

def reduce_by_index_3d 'a [k] [m] [l] [n] (dest: [k][m][l]a) (f: a -> a -> a) (ne: a)
                       (is: [n](i64, i64, i64)) (vs: [n]a) : [k][m][l]a =
  let flat (i: i64, j: i64, h: i64) =
    if i >= 0 && i < k && j >= 0 && j < m && h >= 0 && h < l then (i * m + j) * l + h else -1
  in unflatten_3d k m l (reduce_by_index (flatten_3d dest) f ne (map flat is) vs)

-- The elements where `p1` holds, then those where only `p2` does, then
-- the rest, each in order.
def partition2 'a [n] (p1: a -> bool) (p2: a -> bool) (xs: [n]a) : ([]a, []a, []a) =
  let (ones, rest) = partition p1 xs
  let (twos, others) = partition p2 rest
  in (ones, twos, others)

-- The concatenation of the arrays `f` gives for the elements, with the
-- segments' sizes, a flag at the start of each non-empty segment, the
-- segments' offsets, and `f`'s other results. `f` runs once per element
-- for the sizes and once per element of the result.
def flatmap 'a 'b 'c [n] (f: a -> ([]b, c)) (xs: [n]a) : ([n]i64, []bool, [n]i64, []b, [n]c) =
  let sizes = map (\x -> length (f x).0) xs
  let offsets = exscan (+) 0 sizes
  let m = reduce (+) 0 sizes
  let at = map2 (\o s -> if s > 0 then o else -1) offsets sizes
  let starts = hist i64.max (-1) m at (iota n)
  let segment = scan i64.max (-1) starts
  let flags = map (\s -> s >= 0) starts
  let items = map2 (\j i -> (f xs[i]).0[j - offsets[i]]) (iota m) segment
  in (sizes, flags, offsets, items, map (\x -> (f x).1) xs)

-- `flatmap` without the other results.
def flatmap' 'a 'b [n] (f: a -> []b) (xs: [n]a) : ([n]i64, []bool, [n]i64, []b) =
  let (sizes, flags, offsets, items, _) = flatmap (\x -> (f x, 0i8)) xs
  in (sizes, flags, offsets, items)

def r32 (x: i32) : f32 = f32.i32 x

def t32 (x: f32) : i32 = i32.f32 x

def r64 (x: i32) : f64 = f64.i32 x

def t64 (x: f64) : i32 = i32.f64 x

-- Futhark's optimisation barrier, its tracing and its break point for
-- `futhark repl`: the identity here (arrc has no barrier to honour, and
-- neither prints nor stops).
def opaque 't (x: t) : t = x

def trace 't (x: t) : t = x

def break 't (x: t) : t = x
