//! The command line through the `arrc` executable: built binaries against
//! the interpreter, where `build` writes, exit codes and messages on user
//! mistakes, Futhark's option forms, `arrc test` and `arrc bench`, and
//! pass timing and dumps by name.

mod support;

use std::process::Command;
use support::{arrc_verified as arrc, root, run_with_stdin};

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
    // Options that cannot go together: bad usage, before any compiling.
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("prog.arr");
    std::fs::write(&src, "entry main (x: f32) : f32 = x * x + 1\n").unwrap();
    for flags in [
        &["--count-traffic", "--target", "nvptx-emu"][..],
        &["--sanitize", "address", "--target", "nvptx"][..],
        &["--strict-fp", "--fast-math"][..],
        // An architecture LLVM's NVPTX back end does not know aborted it
        // (exit 134) instead of being refused.
        &["--target", "nvptx", "--gpu", "sm_91", "--emit", "ptx"][..],
        &["--target", "nvptx", "--gpu", "sm_120", "--emit", "ptx"][..],
    ] {
        let out = arrc().arg("build").arg(&src).args(flags).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {stderr}");
    }
}

/// `arrc test` and `arrc bench` with `--target nvptx` on a machine without
/// a usable CUDA driver stop at once with exit code 3 and the one line an
/// executable prints for it (LANGUAGE.md section 9), not a failure per
/// case.
#[test]
fn test_and_bench_without_a_gpu_exit_3_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("prog.arr");
    std::fs::write(
        &src,
        "-- ==\n-- input { [1, 2] } output { 3 }\n-- input { [4] } output { 4 }\n\
         entry main (xs: []i32) : i32 = reduce (+) 0 xs\n",
    )
    .unwrap();
    for command in ["test", "bench"] {
        let out = arrc()
            .args([command, "--target", "nvptx"])
            .arg(&src)
            .env("ARRC_CUDA_LIBRARY", dir.path().join("no-libcuda.so.1"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "arrc {command}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "arrc {command}: {stderr}");
        assert!(
            stderr.starts_with("Error: no CUDA driver"),
            "arrc {command}: {stderr}"
        );
        assert!(
            out.stdout.is_empty(),
            "arrc {command}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

/// `arrc test` without `--target` runs every backend available (LANGUAGE.md
/// section 8). Without a GPU that is x86-64 alone: the output and exit
/// code are those of `--target x86_64` (failure lines without a backend's
/// name), also where `ARRC_CUDA_LIBRARY` names a driver that is missing
/// (the probe runs and is silent), and with no device node no probe is
/// built, so the run takes about as long (the bound is loose: the machine
/// is shared).
#[test]
fn test_without_a_target_on_a_machine_without_a_gpu_is_unchanged() {
    let gpu_nodes = ["/dev/nvidiactl", "/dev/nvidia0", "/dev/dxg"];
    if gpu_nodes.iter().any(|n| std::path::Path::new(n).exists()) {
        eprintln!("skipped: this machine may have a GPU");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("prog.arr");
    std::fs::write(
        &src,
        "-- ==\n-- input { [1, 2] } output { 3 }\n-- input { [4] } output { 5 }\n\
         entry main (xs: []i32) : i32 = reduce (+) 0 xs\n",
    )
    .unwrap();
    let run = |target: bool, driver: Option<&std::path::Path>| {
        let mut cmd = arrc();
        cmd.arg("test").arg(&src).env_remove("ARRC_CUDA_LIBRARY");
        if target {
            cmd.args(["--target", "x86_64"]);
        }
        if let Some(driver) = driver {
            cmd.env("ARRC_CUDA_LIBRARY", driver);
        }
        let start = std::time::Instant::now();
        let out = cmd.output().unwrap();
        (out, start.elapsed().as_secs_f64())
    };
    let (explicit, _) = run(true, None);
    let stdout = String::from_utf8_lossy(&explicit.stdout).into_owned();
    assert_eq!(explicit.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("FAIL ") && stdout.ends_with("1 passed, 1 failed\n"));
    assert!(!stdout.contains("x86_64:"), "{stdout}");
    let missing = dir.path().join("no-libcuda.so.1");
    for driver in [None, Some(missing.as_path())] {
        let (out, _) = run(false, driver);
        assert_eq!(out.status.code(), Some(1), "{driver:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), stdout, "{driver:?}");
        assert_eq!(out.stderr, explicit.stderr, "{driver:?}");
    }
    // Interleaved, the fastest of three each.
    let (mut with, mut without) = (f64::MAX, f64::MAX);
    for _ in 0..3 {
        with = with.min(run(true, None).1);
        without = without.min(run(false, None).1);
    }
    assert!(
        without <= with * 1.5 + 0.5,
        "without --target {without:.2} s, with {with:.2} s"
    );
}

/// `arrc run` takes a compiled program's options, long names and
/// `--threads` included (LANGUAGE.md section 7: it "does the same").
#[test]
fn run_takes_the_options_of_a_compiled_program() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("opts.arr");
    std::fs::write(
        &src,
        "entry main (x: i32) : i32 = x * 2\nentry inc (x: i32) : i32 = x + 1\n",
    )
    .unwrap();
    let times = dir.path().join("times");
    for (args, want) in [
        (&["--entry-point", "inc", "--threads", "2"][..], "21i32\n"),
        (&["--threads=3", "-e", "inc"][..], "21i32\n"),
        (&["--no-print-result", "--runs", "2"][..], ""),
    ] {
        let mut run = arrc();
        run.arg("run").args(args).arg(&src);
        let out = run_with_stdin(run, b"20");
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{args:?}");
    }
    let mut run = arrc();
    run.arg("run")
        .args(["--binary-output", "--write-runtime-to"])
        .arg(&times)
        .arg(&src);
    let out = run_with_stdin(run, b"20");
    let mut want = b"b\x02\x00 i32".to_vec();
    want.extend_from_slice(&40i32.to_le_bytes());
    want.push(b'\n');
    assert_eq!(out.stdout, want);
    assert_eq!(std::fs::read_to_string(&times).unwrap().lines().count(), 1);
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

#[test]
fn a_closed_stdout_ends_a_command_quietly() {
    // The read end is closed before arrc starts (`arrc test ... | head` once
    // head has gone), so the first line it prints fails whatever the timing.
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let program = root().join("tests/programs/local_fun_size_params.arr");
    let out = arrc()
        .arg("test")
        .arg(&program)
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("run arrc test");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
}
