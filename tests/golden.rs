//! Golden tests through the `arrc` executable: test blocks of the golden
//! programs, stage dumps, rendered diagnostics, and the command line's
//! behaviour on user mistakes.
//!
//! `UPDATE_GOLDEN=1 cargo test` rewrites the expected dump and diagnostic
//! files; read the diff before committing it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// `arrc`, verifying the IR after every pass (as debug builds do).
fn arrc() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_arrc"));
    cmd.env("ARRC_VERIFY", "1");
    cmd
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run_with_stdin(mut cmd: Command, stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // A program that stops at a bad option exits before reading its input:
    // the broken pipe that may cause is no failure.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().expect("wait")
}

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
const RECORDED_CASES: usize = 997;

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
/// and only the known files are skipped.
fn golden_programs_at(level: &str) {
    let out = arrc()
        .current_dir(root())
        .env("ARRC_GRAIN", "1")
        .args(["test", level, "--threads", "1,2,7", "--exclude", "bench"])
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

/// `arrc build ARGS FILE` on `source` written to a temporary file: what it
/// prints, after checking that it succeeded.
fn emitted(source: &str, args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("prog.arr");
    std::fs::write(&src, source).unwrap();
    let out = arrc().arg("build").args(args).arg(&src).output().unwrap();
    assert!(
        out.status.success(),
        "arrc build {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The loop of a saxpy-like map is vectorised (AVX2 vectors of 8 floats at
/// `--cpu x86-64-v3`; the native CPU may use wider ones).
#[test]
fn saxpy_loop_is_vectorised() {
    let ir = emitted(
        "entry main (a: f32) (xs: []f32) (ys: []f32) : []f32 =\n  map2 (\\x y -> a * x + y) xs ys\n",
        &["-O3", "--cpu", "x86-64-v3", "--emit", "llvm"],
    );
    let vector_ops = ir
        .lines()
        .filter(|l| l.contains("<8 x float>") && (l.contains("fmul") || l.contains("fma")))
        .count();
    assert!(vector_ops > 0, "no <8 x float> arithmetic in:\n{ir}");
}

#[test]
fn vectorised_streams_are_prefetched_a_page_ahead() {
    // A sum of squares and a dot product summed in f64: their loops load
    // f32 vectors narrower than a cache line.
    for src in [
        "entry main (xs: []f32) : f64 =\n  reduce (+) 0.0 (map (\\x -> f64.f32 x * f64.f32 x) xs)\n",
        "entry main (xs: []f32) (ys: []f32) : f64 =\n  reduce (+) 0.0 (map2 (\\x y -> f64.f32 (x * y)) xs ys)\n",
    ] {
        for cpu in ["x86-64-v3", "x86-64-v4"] {
            let ir = emitted(src, &["-O3", "--cpu", cpu, "--emit", "llvm"]);
            // In every vectorised loop body, one prefetch 4096 bytes ahead
            // per 64-byte cache line its vector loads read, not per load.
            let mut bodies = 0;
            for body in ir.split("\nvector.body").skip(1) {
                let body = &body[..body.find("\n\n").unwrap_or(body.len())];
                let bytes: u64 = body
                    .lines()
                    .filter(|l| l.contains(" = load <"))
                    .map(|l| vector_bytes(&l[l.find("load <").unwrap() + 5..]))
                    .sum();
                let ahead = body
                    .lines()
                    .filter(|l| l.contains("getelementptr i8") && l.contains("i64 4096"))
                    .count() as u64;
                let prefetches = body.matches("call void @llvm.prefetch").count() as u64;
                assert!(bytes > 0 && bytes.is_multiple_of(64), "{cpu}: {body}");
                assert_eq!((ahead, prefetches), (bytes / 64, bytes / 64), "{cpu}: {body}");
                bodies += 1;
            }
            assert!(bodies > 0, "no vectorised loop in:\n{ir}");
        }
    }
}

#[test]
fn streaming_reductions_read_two_halves_side_by_side() {
    // A sum of squares reads one stream; its loop runs each range as two
    // halves in one loop (`split.combine` joins them), whose vectorised
    // body loads both.
    let sumsq = "entry main (xs: []f32) : f64 =\n  \
                 reduce (+) 0.0 (map (\\x -> f64.f32 x * f64.f32 x) xs)\n";
    let ir = emitted(sumsq, &["-O3", "--cpu", "x86-64-v4", "--emit", "llvm"]);
    assert!(ir.contains("split.combine:"), "no split loop in:\n{ir}");
    let split = &ir[ir.find("\nsplit:").unwrap()..ir.find("\nsplit.combine:").unwrap()];
    let body = &split[split.find("\nvector.body").expect("no vectorised halves")..];
    let body = &body[..body.find("\n\n").unwrap_or(body.len())];
    let loads = body.matches(" = load <").count();
    assert!(loads >= 2 && loads.is_multiple_of(2), "{body}");
    // A gather whose index is checked may fail: its iterations stay in order.
    let gather = "entry main (xs: []f32) (is: []i64) : f32 =\n  \
                  reduce (+) 0.0 (map (\\i -> xs[i]) is)\n";
    let ir = emitted(gather, &["-O3", "--emit", "llvm"]);
    assert!(!ir.contains("split.combine"), "{ir}");
}

#[test]
fn gathers_of_a_float_sum_loop_are_prefetched_ahead() {
    // A CSR row's loop sums `vals[s + k] * x[cols[s + k]]` in order: each
    // iteration also prefetches the `x` element that `cols` names 64
    // entries on.
    let spmv = "entry main [n1] [nnz] [m] (offs: [n1]i64) (cols: [nnz]i32) (vals: [nnz]f32) \
                (x: [m]f32) : []f32 =\n  \
                tabulate (n1 - 1) (\\i -> let s = offs[i] in\n    \
                loop acc = 0f32 for k < offs[i + 1] - s do acc + vals[s + k] * x[i64.i32 cols[s + k]])\n";
    let ir = emitted(spmv, &["-O3", "--emit", "llvm"]);
    let ahead = ir.lines().filter(|l| l.contains("%gather.next")).count();
    assert!(ahead > 0 && ir.contains("@llvm.prefetch"), "{ir}");
    // An integer sum of the same gathers vectorises; it gets none.
    let ints = "entry main [n] [m] (cols: [n]i32) (x: [m]i32) : i32 =\n  \
                loop acc = 0i32 for k < n do acc + x[i64.i32 cols[k]]\n";
    let ir = emitted(ints, &["-O3", "--emit", "llvm"]);
    assert!(!ir.contains("gather.next"), "{ir}");
}

#[test]
fn private_histogram_loops_prefetch_their_input_a_page_ahead() {
    // The loop over a thread's private bins is scalar (no `vector.body`):
    // it prefetches the input 4096 bytes ahead, once per loop (its unrolled
    // body reads less than a cache line per iteration), never the bins.
    let src = "entry main [n] (xs: [n]i32) : [256]i32 =\n  \
               hist (+) 0 256 (map (\\x -> i64.i32 (x & 255)) xs) (replicate n 1)\n";
    let ir = emitted(src, &["-O3", "--cpu", "x86-64-v3", "--emit", "llvm"]);
    let start = ir
        .find(".private(")
        .map(|k| ir[..k].rfind("define").unwrap())
        .expect("no private-bins loop");
    let body = &ir[start..start + ir[start..].find("\n}\n").unwrap()];
    let prefetches = body.matches("call void @llvm.prefetch").count();
    let ahead = body
        .lines()
        .filter(|l| l.contains("getelementptr i8") && l.contains("i64 4096"))
        .count();
    // Blocks that branch back to themselves: the loops.
    let loops = body
        .split("\n\n")
        .filter_map(|b| {
            let label = &b[..b.find(':')?];
            let branch = b
                .lines()
                .rev()
                .find(|l| l.trim_start().starts_with("br "))?;
            Some(
                branch.contains(&format!("label %{label},"))
                    || branch.ends_with(&format!("label %{label}")),
            )
        })
        .filter(|&l| l)
        .count();
    assert!(prefetches > 0 && prefetches <= loops, "{body}");
    assert_eq!(ahead, prefetches, "{body}");
}

#[test]
fn compute_bound_vector_bodies_are_not_prefetched() {
    // A matrix product's register-blocked body loads 8 rows and computes
    // 32 operations on them; its vector loads get no prefetch.
    let src = "entry main [n] [k] [m] (a: [n][k]f32) (bt: [m][k]f32) : [n][m]f32 =\n  \
               map (\\x -> map (\\y -> reduce (+) 0.0f32 (map2 (*) x y)) bt) a\n";
    for cpu in ["x86-64-v3", "x86-64-v4"] {
        let ir = emitted(src, &["-O3", "--cpu", cpu, "--emit", "llvm"]);
        let mut blocked = 0;
        for body in ir.split("\nvector.body").skip(1) {
            let body = &body[..body.find("\n\n").unwrap_or(body.len())];
            let loads = body.matches(" = load <").count();
            if loads >= 8 && body.matches(" = fmul ").count() >= 16 {
                assert!(!body.contains("@llvm.prefetch"), "{cpu}: {body}");
                blocked += 1;
            }
        }
        assert!(blocked > 0, "no blocked body in:\n{ir}");
    }
}

/// The size in bytes of a vector type written `<N x T>` at the start of `t`.
fn vector_bytes(t: &str) -> u64 {
    let inner = &t[1..t.find('>').unwrap()];
    let (n, elem) = inner.split_once(" x ").unwrap();
    let width = match elem {
        "i8" => 1,
        "i16" | "half" => 2,
        "i32" | "float" => 4,
        "i64" | "double" => 8,
        other => panic!("element type {other}"),
    };
    n.parse::<u64>().unwrap() * width
}

#[test]
fn multiply_adds_contract_unless_strict_fp_and_fast_math_keeps_nan_and_infinity() {
    let source = "-- ==\n\
         -- input { [1.0f32, 0.0f32, 2.0f32] [0.0f32, 0.0f32, 4.0f32] }\n\
         -- output { [f32.inf, 0.0f32, 0.5f32] [false, true, false] 5.0f32 }\n\
         entry main (xs: []f32) (ys: []f32) : ([]f32, []bool, f32) =\n  \
         let q = map2 (/) xs ys\n  \
         in (map (\\x -> if f32.isnan x then 0.0f32 else x) q, map f32.isnan q,\n      \
         reduce (+) 0.0f32 (map2 (*) xs xs))\n";
    let asm = |flag: Option<&str>| {
        let mut args = vec!["-O3", "--cpu", "x86-64-v3", "--emit", "asm"];
        args.extend(flag);
        emitted(source, &args)
    };
    // Contraction is the default (LANGUAGE.md section 6); `--strict-fp`
    // forbids it.
    assert!(
        asm(Some("--fast-math")).contains("vfmadd"),
        "no FMA with --fast-math"
    );
    assert!(asm(None).contains("vfmadd"), "no FMA by default");
    assert!(
        !asm(Some("--strict-fp")).contains("vfmadd"),
        "FMA with --strict-fp"
    );
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("fm.arr");
    std::fs::write(&src, source).unwrap();
    let out = arrc()
        .args(["test", "-O3", "--fast-math"])
        .arg(&src)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
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

#[test]
fn built_binary_matches_interpreter_on_normalise2() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("normalise2");
    let status = arrc()
        .current_dir(root())
        .args(["build", "examples/normalise2.arr", "-o"])
        .arg(&exe)
        .status()
        .unwrap();
    assert!(status.success());
    let input = b"[3.0f32, 1.0f32, 4.0f32, 1.0f32, 5.0f32]";
    let compiled = run_with_stdin(Command::new(&exe), input);
    let mut run = arrc();
    run.current_dir(root())
        .args(["run", "examples/normalise2.arr"]);
    let interpreted = run_with_stdin(run, input);
    assert!(compiled.status.success() && interpreted.status.success());
    assert_eq!(
        String::from_utf8_lossy(&compiled.stdout),
        String::from_utf8_lossy(&interpreted.stdout)
    );
    assert_eq!(String::from_utf8_lossy(&compiled.stdout).lines().count(), 2);
    // Binary output too is byte for byte the same on both paths.
    let mut bin = Command::new(&exe);
    bin.arg("-b");
    let compiled = run_with_stdin(bin, input);
    let mut run = arrc();
    run.current_dir(root())
        .args(["run", "-b", "examples/normalise2.arr"]);
    let interpreted = run_with_stdin(run, input);
    assert!(compiled.stdout.starts_with(b"b\x02\x01 f32"));
    assert_eq!(compiled.stdout, interpreted.stdout);
}

#[test]
fn build_writes_the_executable_beside_the_source() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("double.arr");
    std::fs::write(&src, "entry main (x: i32) : i32 = x * 2\n").unwrap();
    let status = arrc().arg("build").arg(&src).status().unwrap();
    assert!(status.success());
    let out = run_with_stdin(Command::new(dir.path().join("double")), b"21");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "42i32\n");
}

/// Malformed input: one line naming the argument, exit code 2, on both paths.
#[test]
fn malformed_input_is_reported_with_exit_code_2() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("dotprod");
    assert!(arrc()
        .current_dir(root())
        .args(["build", "examples/dotprod.arr", "-o"])
        .arg(&exe)
        .status()
        .unwrap()
        .success());
    for input in [
        &b"[1.0, 2.0] [1.0, oops]"[..],
        b"[1.0, 2.0]",
        b"[1.0, 2.0] [true, false]",
    ] {
        let compiled = run_with_stdin(Command::new(&exe), input);
        let mut run = arrc();
        run.current_dir(root())
            .args(["run", "examples/dotprod.arr"]);
        let interpreted = run_with_stdin(run, input);
        for (who, out) in [("compiled", &compiled), ("interpreter", &interpreted)] {
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{who}: {stderr}");
            assert_eq!(stderr.lines().count(), 1, "{who}: {stderr}");
            assert!(stderr.starts_with("Error: argument 2"), "{who}: {stderr}");
        }
    }
}

#[test]
fn missing_file_is_one_line_and_exit_1() {
    for command in ["check", "build", "run", "test", "bench"] {
        let out = arrc().args([command, "no/such/file.arr"]).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "arrc {command}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "arrc {command}: {stderr}");
        assert!(stderr.contains("no/such/file.arr"), "arrc {command}");
    }
    // An output path in a directory that does not exist: one line too,
    // not the linker's report.
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("prog.arr");
    std::fs::write(&src, "entry main (x: i32) : i32 = x\n").unwrap();
    let out = arrc()
        .arg("build")
        .arg(&src)
        .args(["-o", "no/such/dir/prog"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("no/such/dir"), "{stderr}");
}

/// The output may be neither a directory nor the source itself (`arrc
/// build prog` of a source without `.arr`).
#[test]
fn build_never_overwrites_its_source() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("prog");
    let text = "entry main (x: i32) : i32 = x\n";
    std::fs::write(&src, text).unwrap();
    for args in [&[][..], &["-o", "."][..]] {
        let out = arrc()
            .current_dir(dir.path())
            .args(["build", "prog"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
    }
    assert_eq!(std::fs::read_to_string(&src).unwrap(), text);
}

/// Compiled programs parse their options as Futhark's do (getopt_long), and
/// end every result with a newline, binary ones too.
#[test]
fn compiled_programs_take_futharks_option_forms() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("opts.arr");
    std::fs::write(
        &src,
        "entry main (x: i32) : i32 = x * 2\nentry inc (x: i32) : i32 = x + 1\n",
    )
    .unwrap();
    assert!(arrc().arg("build").arg(&src).status().unwrap().success());
    let exe = dir.path().join("opts");
    let run = |args: &[&str]| {
        let mut cmd = Command::new(&exe);
        cmd.args(args);
        run_with_stdin(cmd, b"20")
    };
    for (args, want) in [
        (&["-einc"][..], "21i32\n"),
        (&["--entry-point", "inc", "--threads=2"][..], "21i32\n"),
        (&["--entry-point=inc", "-D", "-L"][..], "21i32\n"),
        (&["-bn"][..], ""),
        (&["--no-print-result", "--runs=3"][..], ""),
    ] {
        let out = run(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{args:?}");
    }
    let binary = run(&["--binary-output"]).stdout;
    let mut want = b"b\x02\x00 i32".to_vec();
    want.extend_from_slice(&40i32.to_le_bytes());
    want.push(b'\n');
    assert_eq!(binary, want);
    for args in [&["-x"][..], &["--bogus"][..], &["-e"][..], &["stray"][..]] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).starts_with("Error: "));
    }
}

/// An entry that writes over its arguments (`loopy::donate`) gets them back
/// before every run after the first: with `-r`, on 1 and 2 threads, each
/// run gives the one run's results (the tenth of `a * xs + ys`, a scatter
/// into `xs`, an update of it).
#[test]
fn repeated_runs_restore_overwritten_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("donate.arr");
    std::fs::write(
        &src,
        "entry main (a: f32) (xs: []f32) (ys: []f32) : []f32 = map2 (\\x y -> a * x + y) xs ys\n\
         entry scat (xs: *[]i32) (is: []i64) : []i32 = scatter xs is (map i32.i64 is)\n\
         entry upd (xs: *[]i32) : []i32 = let xs[0] = xs[0] + 1 in xs\n",
    )
    .unwrap();
    assert!(arrc().arg("build").arg(&src).status().unwrap().success());
    let exe = dir.path().join("donate");
    for (entry, input, want) in [
        (
            "main",
            "2f32 [1f32, 2f32, 3f32] [10f32, 20f32, 30f32]",
            "[12.0f32, 24.0f32, 36.0f32]\n",
        ),
        ("scat", "[5, 6, 7] [1i64]", "[5i32, 1i32, 7i32]\n"),
        ("upd", "[5, 6, 7]", "[6i32, 6i32, 7i32]\n"),
    ] {
        for threads in ["1", "2"] {
            let mut cmd = Command::new(&exe);
            cmd.args(["-e", entry, "-r", "3", "--threads", threads]);
            let out = run_with_stdin(cmd, input.as_bytes());
            assert!(out.status.success(), "{entry}");
            assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{entry} -r 3");
        }
    }
}

/// `arrc test` follows futhark-test: `entry:` applies to the cases after it,
/// a case with no stated result must succeed, `error:` patterns see the
/// whole message, and programs tagged `disable` are skipped.
#[test]
fn test_blocks_follow_futhark_test() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("cases.arr"),
        "-- ==\n\
         -- input { [1, 2, 3] 2i64 } output { 3 }\n\
         -- input { [1, 2, 3] 5i64 } error: Error: index 5\n\
         -- input { [1, 2, 3] 5i64 } error: ^index 5\n\
         -- input { [1, 2, 3] 5i64 }\n\
         -- entry: inc\n\
         -- \"named\" nobench input { 4 } auto output\n\
         -- compiled random input { i32 }\n\
         def main (xs: []i32) (i: i64) : i32 = xs[i]\n\
         entry inc (x: i32) : i32 = x + 1\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("disabled.arr"),
        "-- ==\n-- input { 1 } output { 3 }\n-- tags { disable }\nentry main (x: i32) : i32 = x\n",
    )
    .unwrap();
    let out = arrc().arg("test").arg(dir.path()).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.ends_with("5 passed, 1 failed, 1 skipped\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("skipped: ") && stdout.contains("disabled.arr: tagged disable"),
        "{stdout}"
    );
    assert!(
        stdout.contains("cases.arr:5 (main): interpreter: unexpected error"),
        "{stdout}"
    );
}

/// `arrc test` runs `compiled` cases only compiled, `--backend` and `-c`
/// pick one backend, `--exclude-tag` skips tagged cases, `script input`
/// calls entry points, a block's lone `error:` expects a compile error, `-s`
/// checks `structure`, and `.fut` files work as programs and imports.
#[test]
fn test_backends_tags_scripts_and_fut_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("lib")).unwrap();
    std::fs::write(
        dir.path().join("lib/helper.fut"),
        "def inc (x: i32) : i32 = x + 1\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("heavy.fut"),
        "-- ==\n\
         -- compiled input { 3 } output { 4 }\n\
         -- slow input { 1 } output { 99 }\n\
         -- entry: twice\n\
         -- script input { mk 2i64 } output { 6i64 }\n\
         import \"lib/helper\"\n\
         entry main (x: i32) : i32 = inc x\n\
         entry mk (n: i64) : i64 = n + 1\n\
         entry twice (n: i64) : i64 = 2 * n\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("bad.fut"),
        "-- ==\n-- error: unknown name\nentry main (x: i32) : i32 = nosuch x\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("fused.fut"),
        "-- ==\n-- structure { /Screma 1 Index 0 }\n-- structure gpu { SegRed 1 }\n\
         entry main (xs: []f32) : f32 = reduce (+) 0 (map (\\x -> x * 2) xs)\n",
    )
    .unwrap();
    let summary = |args: &[&str]| {
        let out = arrc()
            .arg("test")
            .arg(dir.path())
            .args(args)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        stdout.lines().last().unwrap_or("").to_string()
    };
    assert_eq!(summary(&[]), "3 passed, 1 failed");
    assert_eq!(
        summary(&["--exclude-tag", "slow"]),
        "3 passed, 0 failed, 1 skipped"
    );
    assert_eq!(
        summary(&["--backend", "interpreter", "--exclude", "slow"]),
        "2 passed, 0 failed, 2 skipped"
    );
    assert_eq!(
        summary(&["-c", "--exclude-tag=slow"]),
        "3 passed, 0 failed, 1 skipped"
    );
    assert_eq!(summary(&["-s"]), "1 passed, 0 failed");
    let out = arrc()
        .arg("check")
        .arg(dir.path().join("heavy.fut"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

/// `arrc bench --json` writes Futhark's layout, and a failing case does
/// not stop the others.
#[test]
fn bench_json_has_futharks_layout() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("b.arr");
    std::fs::write(
        &src,
        "-- ==\n-- input { [1, 2] 5i64 }\n-- \"two\" input { [1, 2] 1i64 } output { 2 }\n\
         entry main (xs: []i32) (i: i64) : i32 = xs[i]\n",
    )
    .unwrap();
    let json = dir.path().join("b.json");
    let out = arrc()
        .arg("bench")
        .arg(&src)
        .args(["--runs", "2", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let key = format!("{}:main", src.display());
    let runtimes = &report[key.as_str()]["datasets"]["two"]["runtimes"];
    assert_eq!(runtimes.as_array().map(Vec::len), Some(2), "{report}");
}

#[test]
fn bad_usage_exits_2() {
    let out = arrc().args(["build"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = arrc().args(["build", "x.arr", "-O9"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// `--time-passes` names every pass of the pass list in order, one line
/// each; `--dump-after` prints the IR after the pass it names (any IR),
/// and an unknown name is bad usage that lists the names.
#[test]
fn passes_are_timed_and_dumped_by_name() {
    let src = root().join("tests/dumps/stencil_iota.arr");
    let out = arrc()
        .args(["build", "--emit", "llvm", "--time-passes"])
        .arg(&src)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let names: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.split(" ms  ").nth(1))
        .map(|rest| rest.split(" (").next().unwrap_or(rest))
        .collect();
    let order = [
        "parse",
        "typecheck",
        "lower-core",
        "simplify-fold",
        "simplify-hoist",
        "fusion",
        "lower-loopy",
        "loopy-bounds",
        "loopy-hoist",
        "lint",
        "emit",
        "llvm-opt",
        "total",
    ];
    let mut at = 0;
    for name in order {
        let found = names[at..].iter().position(|n| *n == name);
        assert!(found.is_some(), "{name} missing or out of order:\n{stderr}");
        at += found.unwrap_or(0) + 1;
    }
    for (pass, starts) in [
        ("simplify-cse", "entry "),
        ("fusion", "-- fusion strategy"),
        ("loopy-hoist", "entry "),
        ("llvm-opt", "; ModuleID"),
    ] {
        let out = arrc()
            .args(["build", "--dump-after", pass])
            .arg(&src)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{pass}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.starts_with(starts), "{pass}:\n{stdout}");
    }
    let out = arrc()
        .args(["build", "--dump-after", "no-such-pass"])
        .arg(&src)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("loopy-hoist") && stderr.contains("simplify-fold"),
        "{stderr}"
    );
}
