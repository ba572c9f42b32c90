//! Register blocks of other shapes and group sizes than 4 x 4 in groups of
//! 8 (`ARRC_REGISTER_BLOCK`, `loopy::block`): the kernel loads `rows +
//! cols` vectors per step for `rows * cols` multiply-adds, the groups are
//! those asked for, an outer-product kernel (`oRxC`, `loopy::outer`)
//! broadcasts each row against vectors of the packed panel, the kernels
//! chosen where nothing is asked for fill AVX2's and AVX-512's registers,
//! and every shape computes what the interpreter does, in `f32` and `f64`,
//! remainders of rows and columns included, on 1, 2 and 3 threads.

mod support;

use std::process::Command;

const SRC: &str = "entry main [n] [k] [m] (a: [n][k]f32) (b: [k][m]f32) : [n][m]f32 =\n\
                   \x20 let bt = transpose b\n\
                   \x20 in map (\\x -> map (\\y -> reduce (+) 0.0f32 (map2 (*) x y)) bt) a\n";

fn emit(dir: &std::path::Path, stage: &str, block: &str, extra: &[&str]) -> String {
    emit_source(dir, SRC, stage, Some(block), extra)
}

/// `src` built with `--emit stage` and `extra`, under `ARRC_REGISTER_BLOCK
/// = block` or, without `block`, the target's own blocks.
fn emit_source(
    dir: &std::path::Path,
    src: &str,
    stage: &str,
    block: Option<&str>,
    extra: &[&str],
) -> String {
    let path = dir.join("matmul.arr");
    std::fs::write(&path, src).unwrap();
    let mut cmd = support::arrc();
    cmd.args(["build", "-O3", "--emit", stage])
        .args(extra)
        .arg(&path);
    match block {
        Some(block) => cmd.env("ARRC_REGISTER_BLOCK", block),
        None => cmd.env_remove("ARRC_REGISTER_BLOCK"),
    };
    support::ok(
        cmd.output().unwrap(),
        &format!("arrc build --emit {stage} with {block:?}"),
    )
}

/// The product of `SRC` on `elem` (`f32` or `f64`).
fn source(elem: &str) -> String {
    SRC.replace("f32", elem)
}

/// The vector loads and multiply-adds of the loop with the most
/// multiply-adds on 512-bit registers.
fn kernel_loop(asm: &str) -> (usize, usize) {
    let mut best = (0, 0);
    for block in asm.split("\n.LBB") {
        let loads = block
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("vmovups") || l.starts_with("vmovaps"))
            .filter(|l| {
                l.contains('(') && l.rsplit(", ").next().is_some_and(|r| r.starts_with("%zmm"))
            })
            .count();
        let fmas = block
            .lines()
            .filter(|l| l.contains("vfmadd") && l.contains("ps\t") && l.contains("zmm"))
            .count();
        if fmas > best.1 {
            best = (loads, fmas);
        }
    }
    best
}

#[test]
fn an_eight_by_two_block_loads_ten_vectors_for_sixteen_multiply_adds() {
    if !cfg!(target_arch = "x86_64") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let flags = ["--cpu", "x86-64-v4"];
    assert_eq!(
        kernel_loop(&emit(dir.path(), "asm", "4x4", &flags)),
        (8, 16)
    );
    assert_eq!(
        kernel_loop(&emit(dir.path(), "asm", "8x2", &flags)),
        (10, 16)
    );
    assert_eq!(
        kernel_loop(&emit(dir.path(), "asm", "5x5", &flags)),
        (10, 25)
    );
}

/// What a kernel loop does per step.
#[derive(Debug, Default, PartialEq)]
struct Step {
    fmas: usize,
    loads: usize,
    broadcasts: usize,
    shuffles: usize,
    spills: usize,
}

/// The loop with the most multiply-adds on registers `reg` (`zmm`, `ymm`).
fn kernel_step(asm: &str, reg: &str) -> Step {
    let mut best = Step::default();
    for block in asm.split("\n.LBB") {
        let count =
            |pick: &dyn Fn(&str) -> bool| block.lines().map(str::trim).filter(|l| pick(l)).count();
        let fmas = count(&|l| l.starts_with("vfmadd") && l.contains(reg));
        if fmas > best.fmas {
            best = Step {
                fmas,
                loads: count(&|l| {
                    (l.starts_with("vmovup") || l.starts_with("vmovap"))
                        && l.contains('(')
                        && l.rsplit(", ").next().is_some_and(|r| r.contains(reg))
                }),
                broadcasts: count(&|l| l.starts_with("vbroadcasts") || l.contains("{1to")),
                shuffles: count(&|l| {
                    l.starts_with("vshuf") || l.starts_with("vperm") || l.starts_with("vextract")
                }),
                spills: count(&|l| l.contains("(%rsp)")),
            };
        }
    }
    best
}

/// The loop with the most 512-bit multiply-adds: its multiply-adds, vector
/// loads, broadcasts and shuffles.
fn outer_loop(asm: &str) -> (usize, usize, usize, usize) {
    let step = kernel_step(asm, "zmm");
    (step.fmas, step.loads, step.broadcasts, step.shuffles)
}

#[test]
fn an_outer_product_kernel_broadcasts_rows_against_panel_vectors() {
    if !cfg!(target_arch = "x86_64") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let flags = ["--cpu", "x86-64-v4"];
    // 6 rows by 64 columns: per step 4 vectors of the panel and 6
    // broadcasts for 24 multiply-adds, no shuffle (no sum across lanes).
    let (fmas, loads, broadcasts, shuffles) = outer_loop(&emit(dir.path(), "asm", "o6x64", &flags));
    assert_eq!((fmas, broadcasts, shuffles), (24, 6, 0));
    assert!(loads <= 4, "{loads} vector loads");
    let (fmas, _, broadcasts, shuffles) = outer_loop(&emit(dir.path(), "asm", "o8x32", &flags));
    assert_eq!((fmas, broadcasts, shuffles), (16, 8, 0));
    // Without `b`'s transpose where the product runs as outer products.
    let loopy = emit(dir.path(), "loopy", "o6x64", &[]);
    let guarded = loopy.find("if small").expect("the transpose's guard");
    let transpose = loopy.find("(transpose)").expect("the transpose");
    assert!(guarded < transpose, "{loopy}");
}

/// Where nothing is asked for, the kernel is 10 rows by a panel of 2
/// vector registers on AVX-512 and 6 rows by 2 on AVX2 (16 registers),
/// whose panels of `f64` have half as many columns as those of `f32`: per
/// step one broadcast per row, 12 or 20 multiply-adds, no shuffle and no
/// spill.
#[test]
fn default_kernels_fill_the_vector_registers() {
    if !cfg!(target_arch = "x86_64") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (cpu, elem, reg, fmas, rows, panel_vectors) in [
        ("x86-64-v3", "f32", "ymm", 12, 6, 2),
        ("x86-64-v3", "f64", "ymm", 12, 6, 2),
        ("x86-64-v4", "f32", "zmm", 20, 10, 2),
        ("x86-64-v4", "f64", "zmm", 20, 10, 2),
    ] {
        let asm = emit_source(dir.path(), &source(elem), "asm", None, &["--cpu", cpu]);
        let step = kernel_step(&asm, reg);
        let what = format!("{cpu}, {elem}: {step:?}");
        assert_eq!(
            (step.fmas, step.broadcasts, step.shuffles, step.spills),
            (fmas, rows, 0, 0),
            "{what}"
        );
        assert!(step.loads <= panel_vectors, "{what}");
    }
    // Processors without fused multiply-adds keep the dot products.
    let asm = emit_source(dir.path(), SRC, "loopy", None, &["--cpu", "x86-64-v2"]);
    assert!(!asm.contains("panel"), "{asm}");
}

/// A product whose left, right or both operands a cheap map makes just
/// before it reaches the outer-product kernel as the plain product does
/// (the map's rows are not rebuilt inside the product), and the map that
/// makes the right operand walks its input by rows (it is not moved under
/// the transpose, where it would read `b` by columns).
#[test]
fn mapped_operands_reach_the_outer_product_kernel() {
    if !cfg!(target_arch = "x86_64") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let header = "entry main [n] [k] [m] (a: [n][k]f32) (b: [k][m]f32) : [n][m]f32 =\n";
    let left = "  let a' = map (map (\\x -> x * 2 + 1)) a\n";
    let right = "  let b' = map (map (\\x -> x - 0.5)) b\n";
    let both = format!("{left}{right}");
    for (side, maps, rows, cols) in [
        ("left", left, "a'", "b"),
        ("right", right, "a", "b'"),
        ("both", &*both, "a'", "b'"),
    ] {
        let src = format!(
            "{header}{maps}  in map (\\r -> map (\\c -> f32.sum (map2 (*) r c)) (transpose {cols})) {rows}\n"
        );
        for elem in ["f32", "f64"] {
            let src = src.replace("f32", elem);
            for (cpu, reg, fmas, rows) in
                [("x86-64-v3", "ymm", 12, 6), ("x86-64-v4", "zmm", 20, 10)]
            {
                let asm = emit_source(dir.path(), &src, "asm", None, &["--cpu", cpu]);
                let step = kernel_step(&asm, reg);
                let what = format!("{side}, {elem}, {cpu}: {step:?}\n{src}");
                assert_eq!((step.fmas, step.broadcasts), (fmas, rows), "{what}");
            }
            // Elements of `a` or `b` read one at a time, `x[p, q]`, only by
            // a transpose, whose next line writes them at `[q, p]` (its
            // nest is tiled): not by a map walking a column.
            let loopy = emit_source(dir.path(), &src, "loopy", None, &[]);
            let lines: Vec<&str> = loopy.lines().map(str::trim).collect();
            for (n, line) in lines.iter().enumerate() {
                let Some(from) = line
                    .strip_prefix("read ")
                    .and_then(|l| l.split(" = ").nth(1))
                else {
                    continue;
                };
                let Some((array, index)) = from.split_once('[') else {
                    continue;
                };
                let Some((p, q)) = index.trim_end_matches(']').split_once(", ") else {
                    continue;
                };
                if array.starts_with("a_") || array.starts_with("b_") {
                    let transposed = format!("[{q}, {p}]");
                    let next = lines.get(n + 1).copied().unwrap_or("");
                    assert!(
                        next.starts_with("write ") && next.contains(&transposed),
                        "{side}, {elem}: {line}\n{loopy}"
                    );
                }
            }
        }
    }
}

/// The last operand of the `let` whose line contains `pattern`.
fn operand<'a>(text: &'a str, pattern: &str) -> &'a str {
    let line = text.lines().find(|l| l.contains(pattern)).expect(pattern);
    line.rsplit(' ').next().unwrap()
}

#[test]
fn groups_are_as_large_as_asked() {
    let dir = tempfile::tempdir().unwrap();
    let standard = emit(dir.path(), "loopy", "4x4", &[]);
    assert_eq!(operand(&standard, "let group_want"), "32i64", "{standard}");
    assert_eq!(operand(&standard, "= min group_min"), "8i64", "{standard}");
    let large = emit(dir.path(), "loopy", "4x4,32,8", &[]);
    assert_eq!(operand(&large, "let group_want"), "8i64", "{large}");
    assert_eq!(operand(&large, "= min group_min"), "32i64", "{large}");
}

/// `rows` x `cols` matrix of small whole numbers (exact sums in `f32`).
fn matrix(rows: usize, cols: usize, seed: usize) -> String {
    matrix_of("f32", rows, cols, seed)
}

/// `rows` x `cols` matrix of small whole numbers of type `elem`.
fn matrix_of(elem: &str, rows: usize, cols: usize, seed: usize) -> String {
    let row = |i: usize| {
        let xs: Vec<String> = (0..cols)
            .map(|j| format!("{}{elem}", ((i * 7 + j * 13 + seed) % 9) as i32 - 4))
            .collect();
        format!("[{}]", xs.join(", "))
    };
    let rows: Vec<String> = (0..rows).map(row).collect();
    format!("[{}]", rows.join(", "))
}

#[test]
fn every_shape_computes_what_the_interpreter_does() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("matmul.arr");
    std::fs::write(&src, SRC).unwrap();
    // Rows and columns that leave remainders for every shape, and a product
    // too small for a single block.
    let inputs = [
        format!("{} {}", matrix(37, 19, 1), matrix(19, 23, 2)),
        format!("{} {}", matrix(3, 5, 3), matrix(5, 1, 4)),
        format!("{} {}", matrix(13, 7, 5), matrix(7, 70, 6)),
    ];
    for (n, input) in inputs.iter().enumerate() {
        let expected = support::feed(support::arrc().arg("run").arg(&src), input.as_bytes());
        let expected = support::ok(expected, "arrc run");
        for block in [
            "8x2",
            "5x3,3,2",
            "4x4,32,8",
            "1x1",
            "o6x64,4,2",
            "o5x16,2,2",
            "o4x2,1,1",
        ] {
            let exe = dir
                .path()
                .join(format!("matmul_{n}_{}", block.replace(',', "_")));
            let built = support::arrc()
                .args(["build", "-O3"])
                .arg(&src)
                .arg("-o")
                .arg(&exe)
                .env("ARRC_REGISTER_BLOCK", block)
                .output()
                .unwrap();
            support::ok(built, &format!("arrc build with {block}"));
            for threads in ["1", "2", "3"] {
                let mut cmd = Command::new(&exe);
                cmd.env("ARRC_THREADS", threads).env("ARRC_GRAIN", "1");
                let got = support::ok(support::feed(&mut cmd, input.as_bytes()), "the program");
                assert_eq!(got, expected, "{block} on {threads} threads, input {n}");
            }
        }
    }
}

/// The kernels chosen for AVX2 and AVX-512 (those this processor runs), and
/// `f64` panels, compute what the interpreter does: odd sizes whose last
/// row block and panel overlap the ones before, fewer columns than a panel,
/// and a reduction of one step.
#[test]
fn default_and_f64_kernels_compute_what_the_interpreter_does() {
    let dir = tempfile::tempdir().unwrap();
    let mut cpus = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            cpus.push("x86-64-v3");
        }
        if std::is_x86_feature_detected!("avx512f") {
            cpus.push("x86-64-v4");
        }
    }
    for elem in ["f32", "f64"] {
        let src = dir.path().join(format!("matmul_{elem}.arr"));
        std::fs::write(&src, source(elem)).unwrap();
        let m = |rows, cols, seed| matrix_of(elem, rows, cols, seed);
        let inputs = [
            format!("{} {}", m(37, 19, 1), m(19, 23, 2)),
            format!("{} {}", m(29, 33, 3), m(33, 41, 4)),
            format!("{} {}", m(13, 1, 5), m(1, 70, 6)),
            format!("{} {}", m(11, 9, 7), m(9, 5, 8)),
        ];
        let expected: Vec<String> = inputs
            .iter()
            .map(|input| {
                let out = support::feed(support::arrc().arg("run").arg(&src), input.as_bytes());
                support::ok(out, "arrc run")
            })
            .collect();
        let mut builds: Vec<(&str, Option<&str>)> = cpus.iter().map(|&c| (c, None)).collect();
        builds.extend([("native", Some("o6x64,4,2")), ("native", Some("o4x2,1,1"))]);
        for (cpu, block) in builds {
            let exe = dir.path().join(format!(
                "matmul_{elem}_{cpu}_{}",
                block.unwrap_or("default").replace(',', "_")
            ));
            let mut cmd = support::arrc();
            cmd.args(["build", "-O3", "--cpu", cpu])
                .arg(&src)
                .arg("-o")
                .arg(&exe);
            match block {
                Some(block) => cmd.env("ARRC_REGISTER_BLOCK", block),
                None => cmd.env_remove("ARRC_REGISTER_BLOCK"),
            };
            support::ok(
                cmd.output().unwrap(),
                &format!("arrc build {cpu} {block:?}"),
            );
            for (n, (input, expected)) in inputs.iter().zip(&expected).enumerate() {
                for threads in ["1", "2", "3"] {
                    let mut cmd = Command::new(&exe);
                    cmd.env("ARRC_THREADS", threads).env("ARRC_GRAIN", "1");
                    let got = support::ok(support::feed(&mut cmd, input.as_bytes()), "the program");
                    assert_eq!(
                        &got, expected,
                        "{elem} {cpu} {block:?} on {threads} threads, input {n}"
                    );
                }
            }
        }
    }
}
