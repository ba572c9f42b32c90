//! Arr source compiled through the whole pipeline under every fusion
//! strategy: loops, rows, slices, array builtins, filters and updates.

use super::*;

#[test]
fn loops_carry_arrays_of_changing_size_and_swap_them() {
    let src = "entry main (xs: []i32) (n: i64) : ([]i32, []i32, []i32, i32) =
  let grown = loop acc = xs for i < n do acc ++ [i32.i64 i]
  let (a, b) = loop (a, b) = (xs, map (*10) xs) for _i < 3 do (b, a)
  let c = loop c = 0 while c < 100 do c * 2 + 1
  in (grown, a, b, c)
";
    assert_eq!(
        source_ok(src, "main", "[1, 2, 3] 3"),
        "[1i32, 2i32, 3i32, 0i32, 1i32, 2i32]\n[10i32, 20i32, 30i32]\n[1i32, 2i32, 3i32]\n127i32\n"
    );
}

#[test]
fn long_loops_free_what_each_iteration_allocates() {
    // 20000 iterations of 8 kB arrays would need 160 MB if leaked.
    let src = "entry main (n: i64) : (i64, f32) =
  let (c, v) = loop (c, v) = (0, replicate 1000 1f32) while c < n do
    let w = map (\\x -> x * 2f32) v
    let m = map (\\i -> reduce (+) 0 (map (\\x -> x + f32.i64 i) w)) (iota 10)
    in (c + 1, map2 (\\a b -> a / 2f32 + b * 0f32) w (replicate 1000 m[0]))
  in (c, v[0])
";
    let dir = tempfile::tempdir().expect("temp dir");
    let exe = build_source(src, crate::fusion::ast::Strategy::Ilp, dir.path());
    let (out, err, code) = run_exe("ulimit -v 120000;", &exe, "main", "20000");
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out, "20000i64\n1.0f32\n");
}

#[test]
fn reduce_scan_and_scanr_over_rows_and_nested_reductions() {
    let src = "entry main (m: [][]i32) : ([]i32, [][]i32, [][]i32, []i32, [][][]i32) =
  let k = length (transpose m)
  let colsum = reduce (map2 (+)) (replicate k 0) m
  let sc = scan (map2 (+)) (replicate k 0) m
  let scr = scanr (map2 (+)) (replicate k 0) m
  let rowsum = map (\\row -> reduce (+) 0 row) m
  in (colsum, sc, scr, rowsum, replicate 2 m)
";
    assert_eq!(
        source_ok(src, "main", "[[1, 2], [3, 4], [5, 6]]"),
        "[9i32, 12i32]\n[[1i32, 2i32], [4i32, 6i32], [9i32, 12i32]]\n\
         [[9i32, 12i32], [8i32, 10i32], [5i32, 6i32]]\n[3i32, 7i32, 11i32]\n\
         [[[1i32, 2i32], [3i32, 4i32], [5i32, 6i32]], [[1i32, 2i32], [3i32, 4i32], [5i32, 6i32]]]\n"
    );
    // An empty matrix keeps its row length.
    assert_eq!(
        source_ok(src, "main", "empty([0][2]i32)"),
        "[0i32, 0i32]\nempty([0][2]i32)\nempty([0][2]i32)\nempty([0]i32)\nempty([2][0][2]i32)\n"
    );
}

#[test]
fn slices_strided_backwards_and_mixed_with_checks() {
    let src = "entry main (xs: []i32) (m: [][]i32) : ([]i32, []i32, []i32, [][]i32, []i32, []i32) =
  (xs[1:4], xs[::2], xs[4:0:-1], m[0:2, 1:3], m[:, 1], m[1, :])
entry bad (xs: []i32) (i: i64) : []i32 = xs[i:2]
";
    assert_eq!(
        source_ok(
            src,
            "main",
            "[1, 2, 3, 4, 5] [[1, 2, 3], [4, 5, 6], [7, 8, 9]]"
        ),
        "[2i32, 3i32, 4i32]\n[1i32, 3i32, 5i32]\n[5i32, 4i32, 3i32, 2i32]\n\
         [[2i32, 3i32], [5i32, 6i32]]\n[2i32, 5i32, 8i32]\n[4i32, 5i32, 6i32]\n"
    );
    let (_, err, code) = run_source(src, "bad", "[1, 2, 3] 3");
    assert_eq!(code, Some(1));
    assert!(
        err.contains("index 3:2:1 out of bounds for array of length 3 at"),
        "{err}"
    );
    assert_eq!(source_ok(src, "bad", "[1, 2, 3] 2"), "empty([0]i32)\n");
}

#[test]
fn array_builtins_move_rows_and_check_sizes() {
    let src = "entry main (m: [][]i32) (r: i64) : ([][]i32, []i32, [][]i32, [][]i32, []i32, [][]i32, [][]i32) =
  (transpose m, flatten m, unflatten 3 2 (flatten m), reverse m, rotate r (flatten m),
   concat m m, m with [1] = [7, 8, 9])
entry unfl (xs: []i32) (n: i64) : [][]i32 = unflatten n 2 xs
entry upd (m: [][]i32) (i: i64) : ([][]i32, [][]i32) = (m with [i, 0] = 5, m)
entry rot (xs: []i32) (r: i64) : []i32 = rotate r xs
";
    assert_eq!(
        source_ok(src, "main", "[[1, 2, 3], [4, 5, 6]] -7"),
        "[[1i32, 4i32], [2i32, 5i32], [3i32, 6i32]]\n[1i32, 2i32, 3i32, 4i32, 5i32, 6i32]\n\
         [[1i32, 2i32], [3i32, 4i32], [5i32, 6i32]]\n[[4i32, 5i32, 6i32], [1i32, 2i32, 3i32]]\n\
         [6i32, 1i32, 2i32, 3i32, 4i32, 5i32]\n\
         [[1i32, 2i32, 3i32], [4i32, 5i32, 6i32], [1i32, 2i32, 3i32], [4i32, 5i32, 6i32]]\n\
         [[1i32, 2i32, 3i32], [7i32, 8i32, 9i32]]\n"
    );
    let (_, err, code) = run_source(src, "unfl", "[1, 2, 3] 2");
    assert_eq!(code, Some(1));
    assert!(
        err.contains("size mismatch") && err.contains("prog.arr:4:"),
        "{err}"
    );
    let (_, err, code) = run_source(src, "upd", "[[1, 2], [3, 4]] 2");
    assert_eq!(code, Some(1));
    assert!(
        err.contains("index 2 out of bounds for array of length 2"),
        "{err}"
    );
    assert_eq!(
        source_ok(src, "upd", "[[1, 2], [3, 4]] 1"),
        "[[1i32, 2i32], [5i32, 4i32]]\n[[1i32, 2i32], [3i32, 4i32]]\n"
    );
    assert_eq!(source_ok(src, "rot", "[1, 2, 3] 8"), "[3i32, 1i32, 2i32]\n");
    assert_eq!(source_ok(src, "rot", "empty([0]i32) 5"), "empty([0]i32)\n");
}

#[test]
fn filter_partition_scatter_and_histograms() {
    let src =
        "entry main (xs: []i32) (is: []i64) : ([]i32, []i32, []i32, []i32, []i32, []i32, []i32) =
  let (a, b) = partition (\\x -> x % 2 == 0) xs
  in (filter (> 2) xs, a, b, scatter (replicate 4 0) is xs, hist (+) 0 3 is xs,
      reduce_by_index (replicate 3 100) i32.max i32.lowest is xs, scanr (+) 0 xs)
entry rows (m: [][]i32) (is: []i64) : ([][]i32, [][]i32, [][]i32) =
  (filter (\\r -> r[0] > 1) m, scatter (replicate 3 [0, 0]) is m, hist (map2 (+)) [0, 0] 2 is m)
";
    assert_eq!(
        source_ok(src, "main", "[1, 2, 3, 4, 5] [3, 0, -1, 7, 0]"),
        "[3i32, 4i32, 5i32]\n[2i32, 4i32]\n[1i32, 3i32, 5i32]\n[5i32, 0i32, 0i32, 1i32]\n\
         [7i32, 0i32, 0i32]\n[100i32, 100i32, 100i32]\n[15i32, 14i32, 12i32, 9i32, 5i32]\n"
    );
    assert_eq!(
        source_ok(src, "rows", "[[1, 2], [3, 4], [5, 6]] [2, 0, 9]"),
        "[[3i32, 4i32], [5i32, 6i32]]\n[[3i32, 4i32], [0i32, 0i32], [1i32, 2i32]]\n\
         [[3i32, 4i32], [0i32, 0i32]]\n"
    );
}

#[test]
fn updates_in_place_keep_value_semantics() {
    let src = "entry main (xs: []i32) (n: i64) : ([]i32, []i32, []i32, []i32, []i64) =
  let a = map (+ 1) xs
  let b = a with [0] = 9
  let ys = loop ys = xs for i < length xs do ys with [i] = ys[i] * 2
  let zs = loop zs = replicate n 0i64 for i < n do zs with [i] = i * i
  in (a, b, ys, xs, zs)
entry grid (n: i64) : [][]i64 =
  loop g = replicate n (replicate n 0i64) for i < n do g with [i, n - 1 - i] = i + 1
";
    assert_eq!(
        source_ok(src, "main", "[1, 2, 3] 4"),
        "[2i32, 3i32, 4i32]\n[9i32, 3i32, 4i32]\n[2i32, 4i32, 6i32]\n[1i32, 2i32, 3i32]\n\
         [0i64, 1i64, 4i64, 9i64]\n"
    );
    assert_eq!(
        source_ok(src, "grid", "2"),
        "[[0i64, 1i64], [2i64, 0i64]]\n"
    );
}
