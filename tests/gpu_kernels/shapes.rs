//! Which kernels each kind of nest becomes (from the PTX, `--emit loopy`
//! and launch counts under `ARRC_GPU_COUNT=1`): block trees, row groups,
//! chunked scans, reductions and histograms, tiled products, launches per
//! reduction, host-only arrays and scratch from the pool.

use super::*;

/// The kernels of a program's PTX: name and text, in order.
fn ptx_kernels(source: &str, dir: &Path) -> Vec<(String, String)> {
    let src = dir.join("kernels.arr");
    std::fs::write(&src, source).unwrap();
    let out = arrc()
        .args(["build", "--emit", "ptx"])
        .arg(&src)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ptx = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut kernels: Vec<(String, String)> = Vec::new();
    for line in ptx.lines() {
        if let Some(rest) = line.split(".entry ").nth(1) {
            let name = rest.split('(').next().unwrap_or(rest).trim().to_string();
            kernels.push((name, String::new()));
        } else if let Some((_, text)) = kernels.last_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    kernels
}

/// A reduction whose operator can fail (a checked division, an assertion)
/// is a block tree too: its first kernel's warps shuffle and its blocks
/// synchronise, commutative or not, staged or not; the results and errors
/// are the golden suite's (`reduce_failing_op.arr`).
#[test]
fn reductions_whose_operator_can_fail_take_a_block_tree() {
    let dir = tempfile::tempdir().unwrap();
    for source in [
        "entry main (z: i64) (xs: []i64) : i64 = reduce (\\a b -> a + b + 0 / z) 0 xs",
        "entry main (xs: []i64) : i64 = reduce (\\a b -> assert (a + b < 100) (a + b)) 0 xs",
        "entry main (z: i32) (as: []i32) (bs: []i32) : (i32, i32) =\n  \
         reduce (\\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2 + 0 / z)) (1, 0) (zip as bs)",
    ] {
        let kernels = ptx_kernels(source, dir.path());
        assert_eq!(kernels.len(), 2, "{source}: {kernels:?}");
        let tree = &kernels[0].1;
        assert!(tree.contains("shfl.sync.down"), "{source}: {tree}");
        assert!(tree.contains("bar.sync"), "{source}: {tree}");
    }
}

/// A map of row reductions is one kernel whose warps shuffle (and whose
/// blocks synchronise, for a block per row; also with the reduction in a
/// branch, a loop, or filling scratch, and with an operator that can fail,
/// whose combining steps the group then votes on);
/// a reduction of arrays, a scan of arrays and a histogram of rows are a
/// kernel of a thread per column beside the single-thread one that runs
/// when there are no columns (docs/gpu.md, "Row reductions", "Segmented
/// forms"). The results are the golden suite's (`row_reduce.arr`,
/// `segmented.arr`).
#[test]
fn row_reductions_shuffle_and_segmented_forms_run_a_thread_per_column() {
    let dir = tempfile::tempdir().unwrap();
    let rows = ptx_kernels(
        "entry main (xss: [][]f32) : []f32 = map (\\r -> reduce (+) 0 (map (\\x -> x * x) r)) xss",
        dir.path(),
    );
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(rows[0].1.contains("shfl.sync.down"), "{}", rows[0].1);
    assert!(rows[0].1.contains("bar.sync"), "{}", rows[0].1);
    let checked = ptx_kernels(
        "entry main (xss: [][]i64) : []i64 = map (\\r -> reduce (\\a b -> assert (a < 100) (a + b)) 0 r) xss",
        dir.path(),
    );
    assert_eq!(checked.len(), 1, "{checked:?}");
    for shape in ["shfl.sync.down", "vote.sync.any", "bar.red.or"] {
        assert!(
            checked[0].1.contains(shape),
            "no {shape} in {}",
            checked[0].1
        );
    }
    // A reduction inside a branch or a sequential loop, and one that fills
    // a scratch array read after it, still take a group per row; the
    // scratch array is one buffer per group, synchronised around the fold.
    for (body, scratch) in [
        ("if n == 0 then 0 else reduce (+) 0 r", false),
        (
            "loop a = 0 for i < n do a + reduce (+) 0 (map (* i) r)",
            false,
        ),
        (
            "let ys = map (* 3) r in reduce (+) 0 ys + ys[n % length ys]",
            true,
        ),
    ] {
        let source =
            format!("entry main (n: i64) (xss: [][]i64) : []i64 = map (\\r -> {body}) xss");
        let kernels = ptx_kernels(&source, dir.path());
        assert_eq!(kernels.len(), 1, "{body}: {kernels:?}");
        assert!(
            kernels[0].1.contains("shfl.sync"),
            "{body}: {}",
            kernels[0].1
        );
        assert_eq!(kernels[0].1.contains("bar.warp.sync"), scratch, "{body}");
    }
    for body in [
        "reduce (map2 (+)) (replicate m 0) xss",
        "(scan (map2 (+)) (replicate m 0) xss)[n - 1]",
        "(reduce_by_index (replicate 4 (replicate m 0)) (map2 (+)) (replicate m 0) (map (% 4) (iota n)) xss)[1]",
    ] {
        let source = format!("entry main [n][m] (xss: [n][m]i64) : [m]i64 = {body}");
        let kernels = ptx_kernels(&source, dir.path());
        let names: Vec<&str> = kernels.iter().map(|(n, _)| n.as_str()).collect();
        let single = names.iter().filter(|n| n.ends_with("_single")).count();
        assert_eq!(single, 1, "{body}: {names:?}");
    }
}

/// A reduction of arrays (several fused, too) whose operator is one
/// column's and cannot fail also gets the chunked form's two kernels: a
/// thread per chunk of iterations on its own partial row, then a thread
/// per column combining the rows in chunk order (docs/gpu.md,
/// "Reductions of arrays in chunks"), beside the column form or the
/// single thread that host code runs when the shape does not pay. An
/// operator that can fail, and a scan of arrays (which has chunks of its
/// own, `scans_of_arrays_take_chunks`), keep only those. The results are
/// the golden suite's (`column_tree.arr`).
#[test]
fn reductions_of_arrays_over_few_columns_take_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let header = "entry main [n][m] (xss: [n][m]i64) : [m]i64 =";
    for (source, chunked) in [
        (
            "entry main (xss: [][4]i64) : [4]i64 = reduce (map2 (+)) (replicate 4 0) xss".to_string(),
            true,
        ),
        (format!("{header} reduce (map2 (+)) (replicate m 0) xss"), true),
        (
            format!("{header} let s = map (map (% 7)) xss in map2 (-) (reduce (map2 (+)) (replicate m 0) s) (reduce (map2 (\\a b -> if a != 0 then a else b)) (replicate m 0) s)"),
            true,
        ),
        (
            format!("{header} reduce (map2 (\\a b -> assert (a < 100) (a + b))) (replicate m 0) xss"),
            false,
        ),
        (format!("{header} (scan (map2 (+)) (replicate m 0) xss)[n - 1]"), false),
    ] {
        let kernels = ptx_kernels(&source, dir.path());
        let names: Vec<&str> = kernels.iter().map(|(n, _)| n.as_str()).collect();
        let count = |suffix: &str| names.iter().filter(|n| n.ends_with(suffix)).count();
        let want = usize::from(chunked);
        assert_eq!(count("_chunks"), want, "{source}: {names:?}");
        assert_eq!(count("_combine"), want, "{source}: {names:?}");
    }
}

/// A scan of arrays whose operator is one column's and cannot fail, and
/// none of whose checks depends on the carried row, gets three kernels
/// beside the column form or the single thread: a thread per chunk of
/// iterations folding the chunk's total row, a thread per column scanning
/// the totals in chunk order, a thread per chunk running it again from
/// its prefix (docs/gpu.md, "Scans of arrays in chunks"). Host code runs
/// them when the shape pays: under shrunk launches 5,000 rows take the
/// three launches beside the `replicate` of the neutral element, 20 rows
/// the column form. The results are the golden suite's (`scan_chunks.arr`).
#[test]
fn scans_of_arrays_take_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let header = "entry main [n][m] (xss: [n][m]i64) : [n][m]i64 =";
    for (source, chunked) in [
        (
            "entry main (xss: [][4]i64) : [][4]i64 = scan (map2 (+)) (replicate 4 0) xss"
                .to_string(),
            true,
        ),
        (
            format!("{header} scan (map2 (+)) (replicate m 0) xss"),
            true,
        ),
        (
            format!("{header} scanr (map2 (\\a b -> if b != 0 then b else a)) (replicate m 0) xss"),
            true,
        ),
        (
            format!("{header} scan (map2 (\\a b -> assert (a < 100) (a + b))) (replicate m 0) xss"),
            false,
        ),
        // A check on the scan's rows, fused into its body.
        (
            format!("{header} map (map (\\x -> 100 / x)) (scan (map2 (+)) (replicate m 1) xss)"),
            false,
        ),
    ] {
        let kernels = ptx_kernels(&source, dir.path());
        let names: Vec<&str> = kernels.iter().map(|(n, _)| n.as_str()).collect();
        let count = |suffix: &str| names.iter().filter(|n| n.ends_with(suffix)).count();
        let want = usize::from(chunked);
        for suffix in ["_scan_fold", "_scan_prefix", "_scan_rescan"] {
            assert_eq!(count(suffix), want, "{source}: {names:?}");
        }
    }
    let source =
        "entry colscan [m] (xss: [][m]i64) : [][m]i64 = scan (map2 (+)) (replicate m 0) xss";
    let cpu = build(source, "x86_64", dir.path());
    let emu = build(source, "nvptx-emu", dir.path());
    for (input, launches) in [
        (int_matrix(5000, 4, "i64", 5), 4),
        (int_matrix(5000, 1, "i64", 5), 4),
        (int_matrix(20, 4, "i64", 5), 2),
    ] {
        same_output_in_launches((&cpu, &emu), "colscan", &input, launches);
    }
}

/// A histogram whose bins are rows, with an operator of one column that
/// cannot fail, gets two kernels beside the column form or the single
/// thread: a thread per chunk of iterations updating its private copy of
/// the bins, then a thread per bin element combining the copies in chunk
/// order (docs/gpu.md, "Histograms of rows in chunks"). Host code runs
/// them when the shape pays: under shrunk launches 5,000 rows into 10
/// bins of 3 take them (5 launches with the `replicate`s and the map of
/// the indices), 20 rows the column form (4). The results are the golden
/// suite's (`hist_chunks.arr`).
#[test]
fn histograms_of_rows_take_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let header = "entry main [n][m] (k: i64) (is: [n]i64) (xss: [n][m]i64) : [k][m]i64 =";
    for (source, chunked) in [
        (
            "entry main [n] (k: i64) (is: [n]i64) (xss: [n][4]i64) : [k][4]i64 = hist (map2 (+)) (replicate 4 0) k is xss".to_string(),
            true,
        ),
        (
            format!("{header} reduce_by_index (replicate k (replicate m 0)) (map2 (+)) (replicate m 0) is xss"),
            true,
        ),
        (
            format!("{header} reduce_by_index (replicate k (replicate m 0)) (map2 (\\a b -> assert (a < 100) (a + b))) (replicate m 0) is xss"),
            false,
        ),
    ] {
        let kernels = ptx_kernels(&source, dir.path());
        let names: Vec<&str> = kernels.iter().map(|(n, _)| n.as_str()).collect();
        let count = |suffix: &str| names.iter().filter(|n| n.ends_with(suffix)).count();
        let want = usize::from(chunked);
        for suffix in ["_hist_fold", "_hist_combine"] {
            assert_eq!(count(suffix), want, "{source}: {names:?}");
        }
    }
    let source = format!("{header} reduce_by_index (replicate k (replicate m 0)) (map2 (+)) (replicate m 0) (map (% k) is) xss");
    let cpu = build(&source, "x86_64", dir.path());
    let emu = build(&source, "nvptx-emu", dir.path());
    for (n, launches) in [(5000, 5), (20, 4)] {
        let is: Vec<String> = (0..n).map(|i| format!("{}i64", (i * 7) % 23)).collect();
        let input = format!("10i64 [{}] {}", is.join(","), int_matrix(n, 3, "i64", 5));
        same_output_in_launches((&cpu, &emu), "main", &input, launches);
    }
}

/// Histograms of rows whose operator is one atomic instruction get a
/// kernel of a thread per iteration and column (`_hist_atomic`, docs/gpu.md,
/// "Histograms of rows by atomics"), an `atom.global` per bin element;
/// an operator without one (`*`) or that can fail does not; with a
/// constant width (no column form) a thread per iteration, one atomic per
/// element.
/// Under shrunk launches 3,000 rows into 2,000 bins (too many to copy per
/// chunk) and 30 rows take it (4 launches, no chunks), 5,000 rows into 10
/// bins the chunks (5); the results are the CPU's.
#[test]
fn histograms_of_rows_take_atomics() {
    let dir = tempfile::tempdir().unwrap();
    let header = "entry main [n][m] (k: i64) (is: [n]i64) (xss: [n][m]i64) : [k][m]i64 =";
    for (op, atom) in [
        ("(+)", Some("atom.global.add.u64")),
        ("i64.min", Some("atom.global.min.s64")),
        ("(^)", Some("atom.global.xor.b64")),
        ("(*)", None),
        ("(\\a b -> assert (a < 100) (a + b))", None),
    ] {
        let source = format!("{header} reduce_by_index (replicate k (replicate m 0)) (map2 {op}) (replicate m 0) is xss");
        // A constant width too: a thread per iteration, no column form.
        let fixed = format!("entry main [n] (k: i64) (is: [n]i64) (xss: [n][4]i64) : [k][4]i64 = reduce_by_index (replicate k (replicate 4 0)) (map2 {op}) (replicate 4 0) is xss");
        for source in [source, fixed] {
            let kernels = ptx_kernels(&source, dir.path());
            let atomic: Vec<&(String, String)> = kernels
                .iter()
                .filter(|(n, _)| n.ends_with("_hist_atomic"))
                .collect();
            match atom {
                Some(atom) => {
                    assert_eq!(atomic.len(), 1, "{op}");
                    assert!(atomic[0].1.contains(atom), "{op}: {}", atomic[0].1);
                }
                None => assert!(atomic.is_empty(), "{op}"),
            }
        }
    }
    let source = format!("{header} reduce_by_index (replicate k (replicate m 0)) (map2 (+)) (replicate m 0) (map (% k) is) xss");
    let cpu = build(&source, "x86_64", dir.path());
    let emu = build(&source, "nvptx-emu", dir.path());
    for (n, k, launches) in [(3000, 2000, 4), (30, 7, 4), (5000, 10, 5)] {
        let is: Vec<String> = (0..n)
            .map(|i| format!("{}i64", (i * 7919) % 4001))
            .collect();
        let input = format!("{k}i64 [{}] {}", is.join(","), int_matrix(n, 3, "i64", 5));
        same_output_in_launches((&cpu, &emu), "main", &input, launches);
    }
}

/// The chunked form's partial rows are combined in levels of `F` rows a
/// thread, a launch each (docs/gpu.md, "Reductions of arrays in chunks"):
/// under shrunk launches (192 threads, `F` = 4) 5,000 rows take 192
/// chunks, so the fold and four levels (strides 1, 4, 16, 64), beside the
/// `replicate` of the neutral element; a non-commutative operator keeps
/// its order across levels.
#[test]
fn chunked_reductions_combine_in_levels() {
    let dir = tempfile::tempdir().unwrap();
    let source = "\
entry colsum (xss: [][4]i64) : [4]i64 = reduce (map2 (+)) (replicate 4 0) xss
entry firsts [m] (xss: [][m]i64) : [m]i64 =
  reduce (map2 (\\a b -> if a % 7 == 0 then a else b)) (replicate m 1) xss
";
    let cpu = build(source, "x86_64", dir.path());
    let emu = build(source, "nvptx-emu", dir.path());
    let rows = |n: usize, w: usize| int_matrix(n, w, "i64", 5);
    for (entry, input, launches) in [
        ("colsum", rows(5000, 4), 6),
        ("firsts", rows(5000, 3), 6),
        ("colsum", rows(20, 4), 2),
    ] {
        same_output_in_launches((&cpu, &emu), entry, &input, launches);
    }
}

/// Reductions in loops whose rounds only the row knows (a `while` loop
/// whose condition reads a result, a `for` loop whose count the row
/// computes) take a group per row too, and every fold ends with a vote of
/// the group (`vote.sync.any` for a warp, `bar.red.or` for a block) on
/// which the whole group leaves a row that failed (docs/gpu.md, "Row
/// reductions"). The results are the golden suite's
/// (`row_reduce_dynamic.arr`).
#[test]
fn row_reductions_in_loops_the_row_counts_take_a_group_that_votes() {
    let dir = tempfile::tempdir().unwrap();
    for body in [
        "let (_, a) = loop (k, a) = (0, 0) while k < 3 && a < n do (k + 1, a + reduce (+) 0 r) in a",
        "loop a = 0 for i < r[0] % 4 do a * 3 + reduce (+) 0 (map (+ a) r)",
        "let s = reduce (+) 0 (map (\\x -> assert (x != 0) x) r) in loop i = 0 while i != s do i + 1",
    ] {
        let source =
            format!("entry main (n: i64) (xss: [][]i64) : []i64 = map (\\r -> {body}) xss");
        let kernels = ptx_kernels(&source, dir.path());
        assert_eq!(kernels.len(), 1, "{body}: {kernels:?}");
        let text = &kernels[0].1;
        for shape in ["shfl.sync.down", "vote.sync.any", "bar.red.or"] {
            assert!(text.contains(shape), "{body}: no {shape} in {text}");
        }
    }
    // A loop's array state is one buffer per group, which the folds read
    // and the group's first thread writes between synchronisations of the
    // group (`row_reduce_state.arr`); a kernel beside it fills the initial
    // value.
    let body = "let v = loop v = replicate 3 0 for i < n do v with [i % 3] = reduce (+) 0 (map (+ v[i % 3]) r) in v[0] + v[2]";
    let source = format!("entry main (n: i64) (xss: [][]i64) : []i64 = map (\\r -> {body}) xss");
    let kernels = ptx_kernels(&source, dir.path());
    let rows: Vec<_> = kernels
        .iter()
        .filter(|(name, _)| !name.ends_with("_replicate"))
        .collect();
    assert_eq!(rows.len(), 1, "{kernels:?}");
    for shape in ["shfl.sync.down", "bar.warp.sync", "bar.sync"] {
        assert!(rows[0].1.contains(shape), "no {shape} in {}", rows[0].1);
    }
}

/// Maps over the row beside its reductions (the output's row written
/// after them, a map into a scratch array that a reduction reads at
/// another index, `concat`'s writes one element on) share the row's group
/// too: its kernel shuffles and synchronises the warp around the map
/// (docs/gpu.md, "Row reductions"; before, a thread ran each row and no
/// kernel shuffled). The results are the golden suite's
/// (`row_reduce_maps.arr`).
#[test]
fn row_maps_beside_reductions_take_a_group() {
    let dir = tempfile::tempdir().unwrap();
    for (result, body) in [
        (
            "[][]i64",
            "let m = reduce i64.max 0 r in map (\\x -> x - m) r",
        ),
        (
            "[]i64",
            "let ys = concat [7] (map (* 3) r) in reduce (+) 0 ys + ys[length ys - 1]",
        ),
        (
            "[]i64",
            "let ys = map (* 3) r in reduce (+) 0 (rotate 1 ys) + ys[0]",
        ),
    ] {
        let source = format!("entry main (xss: [][]i64) : {result} = map (\\r -> {body}) xss");
        let kernels = ptx_kernels(&source, dir.path());
        let grouped = kernels.iter().any(|(_, text)| {
            ["shfl.sync.down", "bar.warp.sync", "bar.sync"]
                .iter()
                .all(|shape| text.contains(shape))
        });
        assert!(grouped, "{body}: no group kernel in {kernels:?}");
    }
}

/// Row reductions and row scans whose operator can fail (a checked
/// division, an assertion) take the row's group: the reductions combine by
/// `shfl.sync.down`, a scan's totals by `shfl.sync.up`, and the group
/// votes on a failing operator (docs/gpu.md, "Row reductions"; before, a
/// thread ran each row and no kernel shuffled). The results are the golden
/// suite's (`row_reduce_failing_op.arr`).
#[test]
fn row_operators_that_can_fail_take_a_group() {
    let dir = tempfile::tempdir().unwrap();
    for (result, body, shapes) in [
        (
            "[]i64",
            "reduce (\\a b -> a + b + 0 / z) 0 r",
            &["shfl.sync.down", "vote.sync.any", "bar.red.or"][..],
        ),
        (
            "[]i64",
            "let (a, b) = reduce (\\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2 / z)) (1, 0) (zip r r) in a + b",
            &["shfl.sync.down", "vote.sync.any", "bar.red.or"],
        ),
        (
            "[][]i64",
            "scan (\\a b -> a + b + 0 / z) 0 r",
            &["shfl.sync.up", "vote.sync.any", "bar.red.or"],
        ),
        (
            "[]i64",
            "let ps = scan (\\a b -> assert (a + b < z) (a + b)) 0 r in reduce (+) 0 (map (* 3) ps)",
            &["shfl.sync.up", "shfl.sync.down", "vote.sync.any"],
        ),
    ] {
        let source =
            format!("entry main (z: i64) (xss: [][]i64) : {result} = map (\\r -> {body}) xss");
        let kernels = ptx_kernels(&source, dir.path());
        assert_eq!(kernels.len(), 1, "{body}: {kernels:?}");
        for shape in shapes {
            assert!(
                kernels[0].1.contains(shape),
                "{body}: no {shape} in {}",
                kernels[0].1
            );
        }
    }
}

/// A scan of the row into a scratch array, with a reduction beside it or
/// over its result, is run by the row's group too: the lanes scan their
/// slices' totals by `shfl.sync.up` and the reductions combine by
/// `shfl.sync.down` (docs/gpu.md, "Row reductions"; before, a thread ran
/// each row and no kernel shuffled). The results are the golden suite's
/// (`row_scan.arr`), here also unfused.
#[test]
fn row_scans_take_a_group() {
    let dir = tempfile::tempdir().unwrap();
    for body in [
        "let ys = scan (+) 0 r in reduce (+) 0 (map2 (*) ys r) + ys[0]",
        "let ys = scan (\\a b -> if b == 0 then a else b) 0 r in reduce (+) 0 (rotate 1 ys)",
    ] {
        let source = format!("entry main (xss: [][]i64) : []i64 = map (\\r -> {body}) xss");
        let kernels = ptx_kernels(&source, dir.path());
        let grouped = kernels.iter().any(|(_, text)| {
            [
                "shfl.sync.up",
                "shfl.sync.down",
                "bar.warp.sync",
                "bar.sync",
            ]
            .iter()
            .all(|shape| text.contains(shape))
        });
        assert!(grouped, "{body}: no group kernel in {kernels:?}");
    }
    // Unfused, the row's arrays are nests of their own; a scratch array of
    // a negative size is the row's size check's error, not a full heap
    // (`negative_scratch`).
    let out = arrc()
        .current_dir(root())
        .env("ARRC_GPU_SHRINK", "1")
        .args(["test", "--target", "nvptx-emu", "--fusion", "none"])
        .arg("tests/programs/row_scan.arr")
        .output()
        .expect("arrc test");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(text.contains(" passed, 0 failed"), "{text}");
}

/// A matmul-like nest is a tiled kernel (docs/gpu.md, "Tiled products"):
/// its operands are read from global memory only where the block stages
/// their slices (one load instruction per operand), the product's steps
/// read shared memory between barriers; a map form beside it runs when a
/// row or column map is empty. A nest whose reduction reads an element
/// at another index than `k` keeps the map form. The results are the
/// golden suite's (`matmul_tiled.arr`).
#[test]
fn matmul_like_nests_are_tiled_kernels() {
    let dir = tempfile::tempdir().unwrap();
    let source = std::fs::read_to_string(root().join("benches/programs/matmul.arr")).unwrap();
    let kernels = ptx_kernels(&source, dir.path());
    let names: Vec<&str> = kernels.iter().map(|(n, _)| n.as_str()).collect();
    let map = names
        .iter()
        .find(|n| n.ends_with("_map"))
        .unwrap_or_else(|| panic!("no tiled kernel: {names:?}"));
    let tiled = &kernels
        .iter()
        .find(|(n, _)| format!("{n}_map") == *map)
        .unwrap()
        .1;
    assert_eq!(tiled.matches("ld.global").count(), 2, "{tiled}");
    assert!(tiled.contains("ld.shared"), "{tiled}");
    assert!(tiled.contains("bar.sync"), "{tiled}");
    let shifted = ptx_kernels(
        "entry main [n][k] (a: [n][k]f32) (b: [n][k]f32) : [n][n]f32 = \
         map (\\r -> map (\\c -> reduce (+) 0 (map (\\l -> r[l] * c[(l + 1) % k]) (iota k))) b) a",
        dir.path(),
    );
    assert!(
        !shifted.iter().any(|(n, _)| n.ends_with("_map")),
        "{:?}",
        shifted.iter().map(|(n, _)| n).collect::<Vec<_>>()
    );
}

/// A row with several reductions, or a reduction and a map of the row,
/// long and few enough to split across blocks (docs/gpu.md, "Split
/// rows"), takes one launch per reduction or map under shrunk launches (3
/// blocks): the later ones need the earlier ones' whole rows. Three rows of
/// 2,000 take a block each in one launch.
#[test]
fn split_rows_take_a_launch_per_reduction() {
    let dir = tempfile::tempdir().unwrap();
    let source = "\
entry spread (xss: [][]i64) : ([]i64, []i64) =
  unzip (map (\\row -> let m = reduce (+) 0 row / i64.max 1 (length row)
                     in (m, reduce (+) 0 (map (\\x -> (x - m) * (x - m)) row))) xss)
entry composed (xss: [][]i32) : []i32 =
  map (\\row -> let lo = reduce i32.min i32.highest row
               let (a, b) = reduce (\\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1i32, 0i32)
                                   (map (\\x -> (x - lo - 1, x - lo)) row)
               in reduce (+) 0 (map (\\x -> x * a - b) row)) xss
entry scaled (xss: [][]i64) : [][]i64 =
  map (\\row -> let s = reduce (+) 0 row in map (\\x -> x * 1000 / (s + 1)) row) xss
";
    let cpu = build(source, "x86_64", dir.path());
    let emu = build(source, "nvptx-emu", dir.path());
    let rows = |n: usize, w: usize, ty: &str| int_matrix(n, w, ty, 7);
    for (entry, input, launches) in [
        ("spread", rows(1, 5000, "i64"), 2),
        ("spread", rows(2, 3000, "i64"), 2),
        ("spread", rows(3, 2000, "i64"), 1),
        ("composed", rows(2, 3000, "i32"), 3),
        ("scaled", rows(1, 5000, "i64"), 2),
    ] {
        same_output_in_launches((&cpu, &emu), entry, &input, launches);
    }
}

/// A row's scan, long and few enough rows to split across blocks
/// (docs/gpu.md, "Split rows"), takes two launches under shrunk launches
/// (3 blocks): the chunks' totals, then the chunks scanned from the
/// totals before them; a reduction before it one more, a scan of the
/// row's scratch (`row_scan.arr`) none. Three rows of 2,000 take a block
/// each in one launch.
#[test]
fn split_row_scans_take_two_launches() {
    let dir = tempfile::tempdir().unwrap();
    let source = "\
entry sums (xss: [][]i64) : [][]i64 = map (\\row -> scan (+) 0 row) xss
entry from_max (xss: [][]i64) : [][]i64 =
  map (\\row -> let m = reduce i64.max i64.lowest row in scan (+) 0 (map (\\x -> m - x) row)) xss
entry composed (xss: [][]i32) : [][]i32 =
  map (\\row -> map (\\(a, b) -> a + b)
                   (scan (\\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1i32, 0i32)
                         (map (\\x -> (x % 3 - 1, x)) row))) xss
";
    let cpu = build(source, "x86_64", dir.path());
    let emu = build(source, "nvptx-emu", dir.path());
    for (entry, input, launches) in [
        ("sums", int_matrix(1, 5000, "i64", 7), 2),
        ("sums", int_matrix(2, 3000, "i64", 7), 2),
        ("sums", int_matrix(3, 2000, "i64", 7), 1),
        ("sums", int_matrix(40, 7, "i64", 7), 1),
        ("from_max", int_matrix(1, 5000, "i64", 7), 3),
        ("composed", int_matrix(2, 3000, "i32", 7), 2),
    ] {
        same_output_in_launches((&cpu, &emu), entry, &input, launches);
    }
}

/// Arrays only host code uses stay in host memory (docs/gpu.md, "Memory"):
/// the replicate that starts a sequential loop's array runs in host code,
/// the loop writes and reads its elements there, and the device sees the
/// argument copied in and the result copied out: 2 copies (element by
/// element on the device: 10 writes and 12 reads more), 1 launch. A light map over an array
/// a kernel reads stays a kernel.
#[test]
fn host_only_arrays_stay_in_host_memory() {
    let dir = tempfile::tempdir().unwrap();
    let source = "\
entry main (n: i64) (ys: []i64) : (i64, []i64) =
  let xs = loop xs = replicate 10 0i64 for i < 10 do xs with [i] = i * n
  let s = loop s = 0 for i < 10 do s + xs[i]
  in (s + xs[3] + xs[7], map (+ s) ys)
entry mixed (n: i64) : []i64 =
  let xs = loop xs = replicate 10 0i64 for i < 10 do xs with [i] = i * n
  in map (\\x -> x + xs[x % 10]) (iota n)
";
    let cpu = build(source, "x86_64", dir.path());
    let emu = build(source, "nvptx-emu", dir.path());
    for (entry, input, counts) in [
        ("main", "5i64 [1i64, 2i64, 3i64]", "launches=1 copies=2"),
        ("mixed", "12i64", ""),
    ] {
        let env = [("ARRC_GPU_SHRINK", "1"), ("ARRC_GPU_COUNT", "1")];
        let (want, got) = run_both((&cpu, &emu), entry, input, &env, &[]);
        let err = String::from_utf8_lossy(&got.stderr);
        assert!(got.status.success(), "{entry}: {err}");
        assert_eq!(got.stdout, want.stdout, "{entry}");
        assert!(err.contains(&format!("gpu: {counts}")), "{entry}: {err}");
    }
    let out = arrc()
        .args(["build", "--emit", "loopy", "--target", "nvptx"])
        .arg(dir.path().join("prog.arr"))
        .output()
        .unwrap();
    let loopy = String::from_utf8_lossy(&out.stdout);
    assert_eq!(loopy.matches("host loop map").count(), 1, "{loopy}");
}

/// The emulator, with tiny launches, prints what the CPU binary prints for
/// `entry` on `input`, in exactly `launches` kernel launches.
fn same_output_in_launches(bins: (&Path, &Path), entry: &str, input: &str, launches: usize) {
    let env = [("ARRC_GPU_SHRINK", "1"), ("ARRC_GPU_COUNT", "1")];
    let (want, got) = run_both(bins, entry, input, &env, &[]);
    let err = String::from_utf8_lossy(&got.stderr);
    assert!(got.status.success(), "{entry}: {err}");
    assert_eq!(got.stdout, want.stdout, "{entry} on {input:.80}");
    assert!(
        err.contains(&format!("gpu: launches={launches} ")),
        "{entry}: {err}"
    );
}

/// An `n` by `w` integer matrix literal of type `ty`: element `(r, j)` is
/// `(j * step + r * 3) % 23`, so rows and columns differ.
fn int_matrix(n: usize, w: usize, ty: &str, step: usize) -> String {
    let row = |r: usize| {
        let xs: Vec<String> = (0..w)
            .map(|j| format!("{}{ty}", (j * step + r * 3) % 23))
            .collect();
        format!("[{}]", xs.join(","))
    };
    format!("[{}]", (0..n).map(row).collect::<Vec<_>>().join(","))
}

/// Per-thread scratch of sizes host code knows comes from the pool, one
/// buffer per launch (docs/gpu.md, "Memory"), so a nest whose scratch
/// needs more than the device heap runs after a kernel that allocated
/// from the heap (seed 13100960, unfused at -O0: "out of GPU heap memory"
/// when the heap could no longer be raised).
#[test]
fn known_scratch_comes_from_the_pool() {
    for shrink in ["0", "1"] {
        let out = arrc()
            .current_dir(root())
            .env("ARRC_GPU_SHRINK", shrink)
            .args(["test", "-O0", "--fusion", "none", "--strict-fp"])
            .args(["--target", "nvptx-emu", "--threads", "1,3"])
            .arg("tests/programs/heap_raise_after_first_alloc.arr")
            .output()
            .expect("arrc test");
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{text}");
        assert!(text.contains(" passed, 0 failed"), "{text}");
    }
}
