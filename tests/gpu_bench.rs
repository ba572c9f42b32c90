//! The GPU benchmark and golden-suite scripts a session with a GPU runs
//! (benches/gpu/, docs/gpu.md "Measuring on a GPU"), kept working without
//! one: the CUDA baselines' kernels compile with NVRTC and assemble with
//! ptxas, and their host code type checks under libclang;
//! `benches/compare.py --target nvptx-emu` runs end to end (built here,
//! and from a `--prepare` folder as the GPU machine gets it) and writes
//! its page; an exported golden suite (`ARRC_TEST_EXPORT`) passes
//! under benches/gpu/golden.py, which also catches a wrong value and a
//! wrong error message. Needs python3 with numpy (tests/deps.sh).

mod support;

use std::path::Path;
use std::process::{Command, Output};
use support::{ok, root};

fn python(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new("python3");
    c.current_dir(root())
        .args(args)
        .env("ARRC", env!("CARGO_BIN_EXE_arrc"));
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("python3 runs")
}

#[test]
fn cuda_baselines_compile_with_nvrtc() {
    let out = python(&["benches/gpu/check_cuda.py"], &[]);
    if out.status.code() == Some(3) {
        assert!(
            std::env::var_os("CI").is_none(),
            "NVRTC or ptxas missing under CI: tests/deps.sh installs them"
        );
        eprintln!("NVRTC or ptxas missing: CUDA baselines not compiled");
        return;
    }
    let text = ok(out, "check_cuda.py");
    for name in ["saxpy", "dotprod", "matmul", "nbody", "histogram"] {
        assert!(
            text.contains(&format!("ok {name}.cu sm_90")),
            "{name}: {text}"
        );
    }
    // The host code, type checked by libclang (tests/deps.sh installs it).
    if text.contains("host code not checked") {
        assert!(std::env::var_os("CI").is_none(), "under CI: {text}");
        eprintln!("{text}");
    } else {
        for name in ["saxpy", "prefixsum", "copy", "matmul"] {
            assert!(text.contains(&format!("ok {name}.cu host")), "{text}");
        }
    }
    assert!(text.contains("0 failed"), "{text}");
}

fn page_rows(page: &str, programs: &[&str]) {
    for p in programs {
        let row = page
            .lines()
            .find(|l| l.starts_with(&format!("| {p} | ")))
            .unwrap_or_else(|| panic!("no row for {p}:\n{page}"));
        assert!(!row.contains("failed"), "{row}");
    }
    assert!(!page.contains("## Failures"), "{page}");
}

#[test]
fn compare_runs_on_the_emulator() {
    let dir = tempfile::tempdir().unwrap();
    let d = |s: &str| dir.path().join(s).to_string_lossy().into_owned();
    let data = [("ARRC_BENCH_DATA", d("data"))];
    let env: Vec<(&str, &str)> = data.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let progs = "saxpy,histogram,prefixsum,matmul,nbody";
    let names: Vec<&str> = progs.split(',').collect();
    // built by this arrc
    let work = d("work");
    let out = python(
        &[
            "benches/compare.py",
            "--target",
            "nvptx-emu",
            "--programs",
            progs,
            "--rounds",
            "1",
            "--runs",
            "1",
            "--work",
            &work,
        ],
        &env,
    );
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{log}");
    assert!(log.contains("CUDA baselines skipped"), "{log}");
    let page = std::fs::read_to_string(Path::new(&work).join("gpu-performance.md")).unwrap();
    page_rows(&page, &names);
    // prepared, then run from the folder
    let bins = d("bins");
    let out = python(
        &[
            "benches/compare.py",
            "--target",
            "nvptx-emu",
            "--programs",
            "saxpy,matmul",
            "--prepare",
            &bins,
            "--no-golden",
        ],
        &env,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page_md = d("page.md");
    let out = python(
        &[
            "benches/compare.py",
            "--target",
            "nvptx-emu",
            "--programs",
            "saxpy,matmul",
            "--prebuilt",
            &bins,
            "--rounds",
            "1",
            "--runs",
            "2",
            "--out",
            &page_md,
        ],
        &env,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    page_rows(
        &std::fs::read_to_string(&page_md).unwrap(),
        &["saxpy", "matmul"],
    );
    // a folder of the other target is refused
    let out = python(
        &[
            "benches/compare.py",
            "--target",
            "nvptx",
            "--prebuilt",
            &bins,
        ],
        &env,
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn exported_golden_suite_runs() {
    let dir = tempfile::tempdir().unwrap();
    let export = dir.path().join("golden");
    let out = support::arrc()
        .current_dir(root())
        .args(["test", "--target", "nvptx-emu"])
        .args([
            "tests/programs/row_reduce.arr",
            "tests/programs/hist_locked.arr",
        ])
        .env("ARRC_TEST_EXPORT", &export)
        .env("ARRC_TEST_EXPORT_TARGET", "nvptx-emu")
        .env("ARRC_GPU_SHRINK", "1")
        .output()
        .unwrap();
    ok(out, "arrc test with ARRC_TEST_EXPORT");
    let manifest = std::fs::read_to_string(export.join("cases.jsonl")).unwrap();
    let cases = manifest.lines().count();
    assert!(cases > 20, "{manifest}");
    let golden = export.to_string_lossy().into_owned();
    let out = python(&["benches/gpu/golden.py", &golden, "--shrink"], &[]);
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{log}");
    assert!(
        log.contains(&format!("{cases} passed, 0 failed, 0 skipped")),
        "{log}"
    );
    // a wrong value and a wrong message are failures
    let first_out = manifest
        .lines()
        .find_map(|l| l.split("\"output\":\"").nth(1))
        .and_then(|r| r.split('"').next())
        .unwrap();
    let path = export.join(first_out);
    let mut bytes = std::fs::read(&path).unwrap();
    *bytes.last_mut().unwrap() ^= 0x40;
    std::fs::write(&path, bytes).unwrap();
    let edited = manifest.replacen("\"error\":\"index", "\"error\":\"not index", 1);
    assert_ne!(edited, manifest, "no error case exported");
    std::fs::write(export.join("cases.jsonl"), edited).unwrap();
    let out = python(&["benches/gpu/golden.py", &golden], &[]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert_eq!(text.matches("FAIL [plain]").count(), 2, "{text}");
}
