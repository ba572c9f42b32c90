//! The kernel generator (`--target nvptx` and `--target nvptx-emu`),
//! checked without a GPU: the golden programs under the emulator with tiny
//! launches (`ARRC_GPU_SHRINK=1`: 64-thread blocks, at most 3 blocks, so
//! small inputs take the multi-block paths), every program's PTX through
//! `ptxas` for sm_70, sm_80 and sm_90 (registers and spills reported),
//! the first error in sequential order across blocks, and an nvptx binary
//! on a machine without a CUDA driver.

#[path = "gpu_kernels/shapes.rs"]
mod shapes;
mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::run_with_stdin;

fn arrc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_arrc"))
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn programs(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "arr"))
        .collect();
    files.sort();
    files
}

/// `arrc test --target nvptx-emu` over `dirs`, with tiny launches and one
/// and three emulator threads; benchmark-sized blocks are left to
/// `arrc bench`.
fn emulated_suite(dirs: &[&str]) {
    let mut cmd = arrc();
    cmd.current_dir(root())
        .env("ARRC_GPU_SHRINK", "1")
        .args(["test", "--target", "nvptx-emu", "--threads", "1,3"])
        // The programs tagged `cpu_exact_errors` run too: a GPU executable's
        // exact-errors fallback runs on the CPU (docs/gpu.md, "Errors").
        .args(["--exclude", "bench"])
        .args(dirs);
    let out = cmd.output().expect("arrc test");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(text.contains(" passed, 0 failed"), "{text}");
}

#[test]
fn golden_programs_pass_on_the_emulator() {
    emulated_suite(&["tests/programs"]);
}

#[test]
fn stdlib_benchmarks_and_examples_pass_on_the_emulator() {
    emulated_suite(&[
        "tests/stdlib",
        "benches/programs",
        "tests/fusion",
        "examples",
    ]);
}

/// Registers and spills of every kernel of every program, per architecture.
#[test]
fn every_programs_ptx_assembles_for_sm_70_80_90() {
    let Some(tools) = arrc::runtime::ptx::find() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "ptxas not found under CI: tests/deps.sh installs nvidia-cuda-nvcc-cu12"
        );
        eprintln!("ptxas not found (pip install nvidia-cuda-nvcc-cu12): PTX not assembled");
        return;
    };
    let mut files = programs("tests/programs");
    files.extend(programs("benches/programs"));
    files.extend(programs("tests/stdlib"));
    files.extend(programs("tests/fusion"));
    files.extend(programs("examples"));
    let mut report = String::new();
    let mut failures = Vec::new();
    for arch in ["sm_70", "sm_80", "sm_90"] {
        let (mut kernels, mut max_regs, mut spilling) = (0, 0, Vec::new());
        for file in &files {
            let out = arrc()
                .args(["build", "--emit", "ptx", "--gpu", arch])
                .arg(file)
                .output()
                .unwrap();
            if !out.status.success() {
                failures.push(format!(
                    "{} ({arch}): {}",
                    file.display(),
                    String::from_utf8_lossy(&out.stderr)
                ));
                continue;
            }
            let ptx = String::from_utf8_lossy(&out.stdout);
            match arrc::runtime::ptx::assemble(&tools, &ptx, arch) {
                Ok(stats) => {
                    for s in stats.iter().filter(|s| s.is_kernel) {
                        kernels += 1;
                        max_regs = max_regs.max(s.registers);
                        if s.spill_store_bytes + s.spill_load_bytes > 0 {
                            spilling.push(format!("{}: {}", file.display(), s.name));
                        }
                    }
                }
                Err(e) => failures.push(format!("{} ({arch}): {e}", file.display())),
            }
        }
        let is_bench = |s: &String| s.contains("benches/");
        report.push_str(&format!(
            "{arch}: {kernels} kernels, at most {max_regs} registers, {} spilling {:?}\n",
            spilling.len(),
            spilling
        ));
        assert!(
            !spilling.iter().any(is_bench),
            "benchmark kernels spill on {arch}: {spilling:?}"
        );
    }
    println!("{report}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The fusion decisions are the same ILP on both targets (docs/gpu.md,
/// "Kernels"): every golden program's and benchmark's clusters
/// (`--emit fusion`) for `--target nvptx` are the CPU's.
#[test]
fn fusion_is_the_same_on_both_targets() {
    let mut files = programs("tests/programs");
    files.extend(programs("benches/programs"));
    let emit = |file: &Path, target: &str| {
        arrc()
            .args(["build", "--emit", "fusion", "--target", target])
            .arg(file)
            .output()
            .unwrap()
    };
    for file in &files {
        let (cpu, gpu) = (emit(file, "x86_64"), emit(file, "nvptx"));
        assert_eq!(cpu.status.code(), gpu.status.code(), "{}", file.display());
        assert!(
            cpu.stdout == gpu.stdout,
            "{}: clusters differ",
            file.display()
        );
    }
}

/// `--emit llvm --target nvptx` prints the device module (NVPTX triple,
/// the kernels' special registers), `--emit ptx` the PTX of `--gpu`'s
/// architecture, sm_70 without it.
#[test]
fn emit_prints_the_device_module_and_its_ptx() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("prog.arr");
    std::fs::write(&src, "entry main (xs: []i32) : i32 = reduce (+) 0 xs\n").unwrap();
    let emit = |args: &[&str]| {
        let out = arrc().arg("build").args(args).arg(&src).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let ir = emit(&["--emit", "llvm", "--target", "nvptx"]);
    assert!(
        ir.contains("target triple = \"nvptx64-nvidia-cuda\""),
        "{ir}"
    );
    assert!(ir.contains("@llvm.nvvm.read.ptx.sreg.tid.x"), "{ir}");
    for (args, arch) in [(&[][..], "sm_70"), (&["--gpu", "sm_90"][..], "sm_90")] {
        let ptx = emit(&[&["--emit", "ptx"][..], args].concat());
        assert!(ptx.contains(&format!(".target {arch}")), "{args:?}: {ptx}");
        assert!(ptx.contains(".entry "), "{args:?}");
    }
}

fn build(source: &str, target: &str, dir: &Path) -> PathBuf {
    let src = dir.join("prog.arr");
    std::fs::write(&src, source).unwrap();
    let exe = dir.join(format!("prog-{target}"));
    let out = arrc()
        .args(["build", "--target", target])
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// Entry `entry` of the CPU binary `cpu` and of the emulator's `emu`, on
/// `input`, the emulator's with `env` and `args` besides: (CPU, emulator).
fn run_both(
    (cpu, emu): (&Path, &Path),
    entry: &str,
    input: &str,
    env: &[(&str, &str)],
    args: &[&str],
) -> (Output, Output) {
    let mut want = Command::new(cpu);
    want.args(["-e", entry]);
    let mut got = Command::new(emu);
    got.args(["-e", entry]).args(args).envs(env.iter().copied());
    (
        run_with_stdin(want, input.as_bytes()),
        run_with_stdin(got, input.as_bytes()),
    )
}

/// The golden programs with error cases (but those tagged
/// `cpu_exact_errors`, whose fused code fails in a later statement first by
/// design).
fn programs_with_errors() -> Vec<PathBuf> {
    programs("tests/programs")
        .into_iter()
        .filter(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            text.contains("error:") && !text.contains("cpu_exact_errors")
        })
        .collect()
}

/// `arrc test` of `paths` for `target` on one and three threads with `env`
/// and `ARRC_NO_EXACT_ERRORS=1`: the failed cases, each as its program,
/// line and entry with the error the compiled code printed (the whole line
/// for any other failure), and the output.
fn own_error_failures(
    target: &str,
    paths: &[PathBuf],
    env: &[(&str, &str)],
) -> (Vec<String>, String) {
    let out = arrc()
        .current_dir(root())
        .env("ARRC_NO_EXACT_ERRORS", "1")
        .envs(env.iter().copied())
        .args(["test", "--target", target, "--threads", "1,3"])
        .args(paths)
        .output()
        .expect("arrc test");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let failed = text
        .lines()
        .filter_map(|l| l.strip_prefix("FAIL "))
        .map(|l| {
            let case = l.split(": ").next().unwrap_or(l);
            match l.split_once("compiled: error `") {
                Some((_, rest)) => format!("{case}: {}", rest.split('`').next().unwrap_or("")),
                None => l.to_string(),
            }
        })
        .collect();
    (failed, text)
}

/// With `ARRC_NO_EXACT_ERRORS=1` an executable reports its fused code's
/// own first error instead of re-running the entry unfused: every error
/// case of the golden programs on the emulator, shrunk and not, on one and
/// three threads, must report the interpreter's error, or the one the
/// fused CPU code reports too (fusion moved a later statement's check
/// first: the same on both targets, not a kernel's order).
#[test]
fn kernels_report_the_first_error_in_sequential_order_themselves() {
    let paths = programs_with_errors();
    assert!(paths.len() >= 40, "{} programs", paths.len());
    let mut gpu_failed = Vec::new();
    for env in [&[("ARRC_GPU_SHRINK", "1")][..], &[]] {
        let (failed, text) = own_error_failures("nvptx-emu", &paths, env);
        assert!(text.contains(" passed, "), "{text}");
        gpu_failed.extend(failed);
    }
    if gpu_failed.is_empty() {
        return;
    }
    let failing: Vec<PathBuf> = paths
        .into_iter()
        .filter(|p| {
            let name = format!("{}:", p.display());
            gpu_failed.iter().any(|f| f.starts_with(&name))
        })
        .collect();
    let (cpu_failed, text) = own_error_failures("x86_64", &failing, &[]);
    let kernels_own: Vec<&String> = gpu_failed
        .iter()
        .filter(|f| !cpu_failed.contains(f))
        .collect();
    assert!(
        kernels_own.is_empty(),
        "errors in another order than the interpreter's and the CPU's:\n{kernels_own:#?}\nCPU:\n{text}"
    );
}

/// Iterations 150 and 40 fail (different blocks under the shrunk launch;
/// in a scan, different tiles of the look-back kernel): the error printed
/// is iteration 40's, as on the CPU, in every kernel form.
#[test]
fn the_first_error_in_sequential_order_wins_across_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let source = "\
entry gather (xs: []i32) (is: []i64) : []i32 = map (\\i -> xs[i]) is
entry total (xs: []i32) (is: []i64) : i32 = reduce (+) 0 (map (\\i -> xs[i]) is)
entry prefix (xs: []i32) (is: []i64) : []i32 = scan (+) 0 (map (\\i -> xs[i]) is)
entry both (xs: []i32) (is: []i64) : ([]i32, i32) =
  let ys = map (\\i -> xs[i]) is in (scan (+) 0 ys, reduce (*) 1 ys)
";
    let cpu = build(source, "x86_64", dir.path());
    let emu = build(source, "nvptx-emu", dir.path());
    let is: Vec<String> = (0..200)
        .map(|k| match k {
            40 => "1000i64".to_string(),
            150 => "2000i64".to_string(),
            _ => format!("{}i64", k % 10),
        })
        .collect();
    let input = format!("[0,1,2,3,4,5,6,7,8,9] [{}]", is.join(","));
    for entry in ["gather", "total", "prefix", "both"] {
        let shrink = [("ARRC_GPU_SHRINK", "1")];
        let (want, got) = run_both((&cpu, &emu), entry, &input, &shrink, &[]);
        let message = String::from_utf8_lossy(&got.stderr).into_owned();
        assert!(
            message.contains("index 1000 out of bounds"),
            "{entry}: {message}"
        );
        assert_eq!(message, String::from_utf8_lossy(&want.stderr), "{entry}");
        assert_eq!(got.status.code(), Some(1), "{entry}");
    }
}

/// A kernel with more parameters than the emulator's and the CUDA launch's
/// old fixed limit of 64 (unoptimised code passes every size it uses): 100
/// scalars of the entry, each a free variable of one map's kernel.
#[test]
fn a_kernel_with_a_hundred_parameters_launches() {
    let dir = tempfile::tempdir().unwrap();
    let params: Vec<String> = (0..100).map(|k| format!("(a{k}: i64)")).collect();
    let terms: Vec<String> = (0..100)
        .map(|k| format!("a{k} * (x % {})", k + 2))
        .collect();
    let source = format!(
        "entry main (xs: []i64) {} : []i64 = map (\\x -> {}) xs\n",
        params.join(" "),
        terms.join(" + ")
    );
    let cpu = build(&source, "x86_64", dir.path());
    let emu = build(&source, "nvptx-emu", dir.path());
    let scalars: Vec<String> = (0..100).map(|k| format!("{}i64", k * 3 - 50)).collect();
    let input = format!(
        "[{}] {}",
        (0..300)
            .map(|k| k.to_string())
            .collect::<Vec<_>>()
            .join(","),
        scalars.join(" ")
    );
    let shrink = [("ARRC_GPU_SHRINK", "1")];
    let (want, got) = run_both((&cpu, &emu), "main", &input, &shrink, &[]);
    assert!(
        want.status.success(),
        "{}",
        String::from_utf8_lossy(&want.stderr)
    );
    assert!(
        got.status.success(),
        "{}",
        String::from_utf8_lossy(&got.stderr)
    );
    assert_eq!(got.stdout, want.stdout);
}

#[test]
fn an_nvptx_binary_without_a_cuda_driver_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    let exe = build(
        "entry main (xs: []f32) : f32 = reduce (+) 0 (map (*2) xs)",
        "nvptx",
        dir.path(),
    );
    let mut cmd = Command::new(&exe);
    cmd.env("ARRC_CUDA_LIBRARY", dir.path().join("no-libcuda.so.1"));
    let out = run_with_stdin(cmd, b"[1,2,3]");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("Error: no CUDA driver: cannot load"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

/// Scratch arrays inside kernels come from the device heap (8 MiB unless
/// raised; the emulator keeps the same limit): a size host code knows
/// raises the heap before the launch, one only the iteration knows and
/// that does not fit is a run-time error, never a crash.
#[test]
fn scratch_arrays_raise_the_device_heap_or_report_it_full() {
    let dir = tempfile::tempdir().unwrap();
    // 3,000,000 f32 (12 MB) per iteration: `k` is known before the launch.
    let source = "\
entry known (k: i64) (xs: []f32) : []f32 =
  let cs = map f32.i64 (iota k)
  in map (\\x -> let ds = map (\\c -> (x - c) * (x - c)) cs
                 in if k == 0 then 0 else ds[argmax ds] - ds[0]) xs
entry unknown (xs: []i64) : []i64 =
  map (\\x -> let ds = map (\\i -> (i * 7) % 13) (iota x)
              in if x == 0 then 0 else ds[argmax ds] + ds[0]) xs
";
    let cpu = build(source, "x86_64", dir.path());
    let emu = build(source, "nvptx-emu", dir.path());
    for (entry, input) in [
        ("known", "3000000i64 [1f32, 2f32, 3f32]"),
        ("unknown", "[5i64, 2000000i64, 3i64]"),
    ] {
        let shrink = [("ARRC_GPU_SHRINK", "1")];
        let (want, got) = run_both((&cpu, &emu), entry, input, &shrink, &[]);
        assert!(want.status.success(), "{entry} on the CPU");
        let err = String::from_utf8_lossy(&got.stderr).into_owned();
        if entry == "known" {
            assert!(got.status.success(), "{entry}: {err}");
            assert_eq!(got.stdout, want.stdout, "{entry}");
        } else {
            // 2,000,000 i64 is 16 MB, more than the heap's 8 MiB.
            assert_eq!(got.status.code(), Some(1), "{entry}: {err}");
            assert_eq!(
                err,
                "Error: out of GPU heap memory (a kernel allocating 16000000 bytes of \
                 scratch memory; the device heap has 8388608 bytes)\n"
            );
        }
    }
}

/// A scan, a filter and a partition are one kernel each (decoupled
/// look-back), and on the emulator's default launches (128-thread blocks,
/// two blocks per CPU thread: hundreds of tiles here) their blocks wait
/// for each other's tiles and finish, on one CPU thread and on three,
/// with the CPU binary's results.
#[test]
fn look_back_scans_are_one_kernel_and_progress_on_one_or_three_threads() {
    let dir = tempfile::tempdir().unwrap();
    let source = "\
entry prefix (n: i64) : (i64, i64) =
  let ys = scan (\\a b -> if b % 3 == 0 then a else b) 0 (map (\\i -> (i * 7919) % 1000) (iota n))
  in (ys[n / 3], reduce (+) 0 ys)
entry keep (n: i64) : (i64, i64) =
  let ks = filter (\\i -> (i * 7919) % 7 < 3) (iota n)
  in (length ks, ks[length ks / 2])
entry split (n: i64) : (i64, i64) =
  let (as, bs) = partition (\\i -> (i * 7919) % 5 == 0) (iota n)
  in (as[length as - 1], bs[length bs / 2])
";
    let src = dir.path().join("one.arr");
    for body in [
        "scan (+) 0 xs",
        "filter (\\x -> x > 0) xs",
        "(partition (\\x -> x > 0) xs).0",
    ] {
        std::fs::write(&src, format!("entry main (xs: []i64) : []i64 = {body}")).unwrap();
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
        let ptx = String::from_utf8_lossy(&out.stdout);
        let kernels = ptx.lines().filter(|l| l.contains(".entry")).count();
        assert_eq!(kernels, 1, "{body}: {ptx}");
    }
    let cpu = build(source, "x86_64", dir.path());
    let emu = build(source, "nvptx-emu", dir.path());
    for entry in ["prefix", "keep", "split"] {
        for threads in ["1", "3"] {
            let args = ["--threads", threads];
            let (want, got) = run_both((&cpu, &emu), entry, "200000i64", &[], &args);
            assert!(want.status.success(), "{entry} on the CPU");
            let err = String::from_utf8_lossy(&got.stderr);
            assert!(got.status.success(), "{entry} on {threads}: {err}");
            assert_eq!(got.stdout, want.stdout, "{entry} on {threads}");
        }
    }
}
