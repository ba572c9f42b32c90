//! Golden tests through the `arrc` executable: test blocks of the golden
//! programs (also under valgrind and the sanitizers), stage dumps and
//! rendered diagnostics. The shape of generated code is checked in
//! tests/code_shape.rs, the command line's behaviour in tests/cli.rs.
//!
//! `UPDATE_GOLDEN=1 cargo test` rewrites the expected dump and diagnostic
//! files; read the diff before committing it.

mod support;

use std::path::{Path, PathBuf};
use support::{arrc_verified as arrc, root};

fn files_with_extension(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    files
}

/// Compares `actual` with the file at `expected`, or rewrites it under UPDATE_GOLDEN.
fn check_golden(expected: &Path, actual: &str) -> Result<(), String> {
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(expected, actual).unwrap();
        return Ok(());
    }
    let want = std::fs::read_to_string(expected).map_err(|e| {
        format!(
            "{}: {e} (run with UPDATE_GOLDEN=1 to create it)",
            expected.display()
        )
    })?;
    if want == actual {
        Ok(())
    } else {
        Err(format!(
            "{} differs:\n--- expected\n{want}\n--- actual\n{actual}",
            expected.display()
        ))
    }
}

/// Folders of programs whose test blocks make up the golden suite.
const GOLDEN_DIRS: &[&str] = &[
    "tests/programs",
    "tests/stdlib",
    "tests/fusion",
    "tests/simplify",
    "examples",
    "benches/programs",
];

/// Files without a test block on purpose: modules the others import.
const WITHOUT_BLOCK: &[&str] = &[
    "tests/programs/lib/sub/scalar.arr",
    "tests/programs/lib/vec3.arr",
];

/// The suite had this many cases when last counted; fewer means test
/// blocks were lost (raise it when adding cases).
const RECORDED_CASES: usize = 2453;

fn arr_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            arr_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "arr") {
            out.push(p);
        }
    }
}

/// Cases (times entry points) the golden suite must run: those of every
/// block that is neither disabled nor a benchmark's.
fn expected_cases() -> usize {
    use arrc::driver::testblock::{disabled, parse_blocks};
    let mut files = Vec::new();
    for dir in GOLDEN_DIRS {
        arr_files(&root().join(dir), &mut files);
    }
    let mut cases = 0;
    for f in files {
        let blocks = parse_blocks(&std::fs::read_to_string(&f).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert!(!disabled(&blocks), "{} is tagged disable", f.display());
        for b in blocks
            .iter()
            .filter(|b| !b.tags.iter().any(|t| t == "bench"))
        {
            cases += b.cases.iter().map(|c| c.entries.len()).sum::<usize>();
        }
    }
    cases
}

/// Every case of the golden programs passes on the interpreter and
/// compiled at `-O{level}` on 1, 2 and 7 threads, with a grain of 1 that
/// sends even tiny nests through the parallel strategies; every case runs,
/// and only the known files are skipped. The interpreter runs in its
/// checking mode, so that a case whose result depends on unspecified
/// behaviour (a scatter's duplicate indices) fails every time, not on some
/// thread counts only.
fn golden_programs_at(level: &str) {
    let out = arrc()
        .current_dir(root())
        .env("ARRC_GRAIN", "1")
        .args(["test", level, "--threads", "1,2,7", "--exclude", "bench"])
        .arg("--check-unspecified")
        .args(GOLDEN_DIRS)
        .output()
        .expect("run arrc test");
    let stdout = String::from_utf8_lossy(&out.stdout);
    print!("{stdout}");
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    let summary = stdout.lines().last().unwrap_or("");
    assert!(out.status.success(), "arrc test {level} failed: {summary}");
    let passed: usize = summary
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no summary line: {summary}"));
    let skipped: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("skipped: "))
        .collect();
    let allowed: Vec<String> = WITHOUT_BLOCK
        .iter()
        .map(|f| format!("{f}: no test block"))
        .collect();
    assert_eq!(skipped, allowed, "files skipped without a test");
    let expected = expected_cases();
    assert_eq!(
        passed, expected,
        "{passed} cases passed, the blocks hold {expected}"
    );
    assert!(
        passed >= RECORDED_CASES,
        "{passed} cases, fewer than the {RECORDED_CASES} recorded"
    );
}

#[test]
fn golden_programs_pass_at_o0() {
    golden_programs_at("-O0");
}

#[test]
fn golden_programs_pass_at_o2() {
    golden_programs_at("-O2");
}

#[test]
fn golden_programs_pass_at_o3() {
    golden_programs_at("-O3");
}

/// The case that made CI flaky (tests/simplify/scatter_split.arr before
/// dc7376c): it wrote index 0 twice and expected the later value, which
/// the interpreter stores and a parallel binary need not. The checking
/// mode fails it, with the scatter's location; without it, it passes.
#[test]
fn checking_mode_fails_a_case_that_expects_one_of_duplicates() {
    let dir = tempfile::tempdir().unwrap();
    let prog = dir.path().join("unpaired.arr");
    std::fs::write(
        &prog,
        "-- ==\n\
         -- entry: unpaired\n\
         -- input { 4i64 [0i64] [1i64, 0i64] [7i32, 8i32] [9i32] }\n\
         -- output { [9i32, 8i32, 0i32, 0i32] }\n\
         \n\
         entry unpaired [n] [m] (k: i64) (a: [n]i64) (b: [m]i64) (c: [m]i32) (d: [n]i32) : []i32 =\n  \
         scatter (replicate k 0) (a ++ b) (c ++ d :> [n + m]i32)\n",
    )
    .unwrap();
    let test = |check: bool| {
        let mut cmd = arrc();
        cmd.current_dir(dir.path()).args(["test", "-i"]);
        if check {
            cmd.arg("--check-unspecified");
        }
        cmd.arg("unpaired.arr").output().expect("run arrc test")
    };
    let plain = test(false);
    assert!(plain.status.success(), "{plain:?}");
    let checked = test(true);
    let stdout = String::from_utf8_lossy(&checked.stdout);
    assert!(!checked.status.success(), "{stdout}");
    assert!(
        stdout.contains(
            "unspecified behaviour: this scatter writes two different values to index 0: \
             7i32 and 9i32 (of which any one is stored) at unpaired.arr:7:3"
        ),
        "{stdout}"
    );
}

/// Compiled programs neither touch memory they do not own nor leak, on one
/// thread and on the pool (valgrind; `--cpu x86-64-v3` because valgrind
/// does not decode AVX-512).
#[test]
fn compiled_programs_are_valgrind_clean() {
    let out = arrc()
        .current_dir(root())
        .env("ARRC_TEST_VALGRIND", "1")
        .env("ARRC_GRAIN", "1")
        .args([
            "test",
            "--cpu",
            "x86-64-v3",
            "--threads",
            "1,2",
            "tests/fusion",
            "examples",
            "tests/programs/scanr.arr",
            "tests/programs/filter_partition.arr",
            "tests/programs/hist.arr",
            "tests/programs/nested_soacs.arr",
            "tests/programs/scatter.arr",
            "tests/programs/runtime_errors.arr",
            "tests/programs/loops.arr",
            "tests/programs/loop_borrow.arr",
            "tests/programs/irregular_rows.arr",
        ])
        .output()
        .expect("run arrc test");
    let stdout = String::from_utf8_lossy(&out.stdout);
    print!("{stdout}");
    assert!(out.status.success(), "{stdout}");
}

/// The programs the sanitizer builds check: fusion's (every cluster shape),
/// blocked and tiled nests, scratch memory, scan lanes, irregular rows,
/// histograms, scatters, filters and run-time errors.
const SANITIZED: &[&str] = &[
    "tests/fusion",
    "tests/programs/matmul_block.arr",
    "tests/programs/transpose_flatten.arr",
    "tests/programs/scratch_memory.arr",
    "tests/programs/scan_lanes.arr",
    "tests/programs/irregular_rows.arr",
    "tests/programs/rows_sliced_in_map.arr",
    "tests/programs/hist.arr",
    "tests/programs/reduce_by_index.arr",
    "tests/programs/scatter.arr",
    "tests/programs/filter_partition.arr",
    "tests/programs/runtime_errors.arr",
    "tests/programs/if_view_escape.arr",
    "tests/programs/donate_args.arr",
    "tests/programs/loop_borrow.arr",
];

/// `arrc test --sanitize KIND` over `SANITIZED` with the smallest grain, so
/// that tiny inputs take the parallel paths; a report of the sanitizer
/// fails the case (its exit code and message are not the expected ones).
fn sanitized(kind: &str, extra: &[&str], threads: &str, skip: &[&str]) {
    let out = arrc()
        .current_dir(root())
        .env("ARRC_GRAIN", "1")
        .args(["test", "--sanitize", kind, "--threads", threads])
        .args(extra)
        .args(SANITIZED.iter().filter(|p| !skip.contains(p)))
        .output()
        .expect("run arrc test");
    let stdout = String::from_utf8_lossy(&out.stdout);
    print!("{stdout}");
    assert!(out.status.success(), "{stdout}");
}

/// AddressSanitizer over exact allocations (no rounding, no cache: an
/// overrun of one byte is seen), at 1, 2 and 7 threads, with 512-bit
/// vectors where the processor has them. The whole golden suite passes
/// the same way (docs/testing.md); CI runs this selection.
#[test]
fn compiled_programs_are_address_sanitizer_clean() {
    let wide: &[&str] = if std::arch::is_x86_feature_detected!("avx512f") {
        &["--cpu", "x86-64-v4"]
    } else {
        eprintln!("no AVX-512 here: the 512-bit code is not checked");
        &[]
    };
    sanitized("address", wide, "1,2,7", &[]);
}

/// ThreadSanitizer: no data race between the scheduler's threads. Not
/// scatter.arr: its scatters with duplicate indices race by design (which
/// write wins is unspecified, as in Futhark).
#[test]
fn compiled_programs_are_thread_sanitizer_clean() {
    sanitized("thread", &[], "2,7", &["tests/programs/scatter.arr"]);
}

#[test]
fn golden_stage_dumps() {
    let dir = root().join("tests/dumps");
    let mut failures = Vec::new();
    for program in files_with_extension(&dir, "arr") {
        for stage in ["core", "fused", "loopy"] {
            // Tiles are sized by the host's L2 cache, and register blocks
            // shaped by its processor: fix them at the 1 MiB and 4 x 4
            // blocks the dumps were made with.
            let out = arrc()
                .current_dir(root())
                .env("ARRC_L2_BYTES", "1048576")
                .env("ARRC_REGISTER_BLOCK", "4x4")
                .args(["build", "--emit", stage])
                .arg(program.strip_prefix(root()).unwrap())
                .output()
                .unwrap();
            if !out.status.success() {
                failures.push(format!(
                    "{} --emit {stage}: {}",
                    program.display(),
                    String::from_utf8_lossy(&out.stderr)
                ));
                continue;
            }
            let expected = program.with_extension(stage);
            if let Err(e) = check_golden(&expected, &String::from_utf8_lossy(&out.stdout)) {
                failures.push(e);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn golden_diagnostics() {
    let dir = root().join("tests/errors");
    let programs = files_with_extension(&dir, "arr");
    assert!(!programs.is_empty());
    let mut failures = Vec::new();
    for program in programs {
        let out = arrc()
            .current_dir(root())
            .arg("check")
            .arg(program.strip_prefix(root()).unwrap())
            .output()
            .unwrap();
        if out.status.code() != Some(1) {
            failures.push(format!(
                "{}: exit {:?}, expected 1",
                program.display(),
                out.status.code()
            ));
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        if stderr.contains("panicked") {
            failures.push(format!("{}: compiler panicked", program.display()));
        }
        if let Err(e) = check_golden(&program.with_extension("err"), &stderr) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_emit_stage_prints_something() {
    for stage in ["core", "fused", "loopy", "llvm", "asm"] {
        let out = arrc()
            .current_dir(root())
            .args(["build", "examples/normalise2.arr", "--emit", stage])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "--emit {stage}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stdout.len() > 50,
            "--emit {stage} printed almost nothing"
        );
    }
    let llvm = arrc()
        .current_dir(root())
        .args(["build", "examples/normalise2.arr", "--emit", "llvm"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&llvm.stdout).contains("define"));
}
