//! Non-temporal stores for large outputs written in order (`cpu::stream`):
//! a map nest's stream variant writes the same values as the plain one and
//! the interpreter, on every thread count and chunking, including chunks
//! that start off a multiple of 16 (the variant then falls back to the
//! plain loop) and element types too narrow for aligned vector stores.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

const SRC: &str = "entry main (n: i64) (s: f32) : ([]f32, []f64, []i8, []i32) =\n\
                   \x20 let a = map (\\i -> f32.i64 i * s + 1f32) (iota n)\n\
                   \x20 let b = map (\\i -> f64.i64 i * 0.25f64) (iota n)\n\
                   \x20 let c = map (\\i -> i8.i64 i) (iota n)\n\
                   \x20 let d = map (\\i -> i32.i64 (i * 3)) (iota n)\n\
                   \x20 in (a, b, c, d)\n";

/// Writes `SRC` into `dir` and builds it at `-O3` with the compiler's
/// environment `env`: (source, executable).
fn build_streams(dir: &Path, env: &[(&str, &str)]) -> (PathBuf, PathBuf) {
    let src = dir.join("streams.arr");
    std::fs::write(&src, SRC).unwrap();
    let exe = dir.join("streams");
    let built = support::arrc()
        .args(["build", "-O3"])
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    support::ok(built, "arrc build -O3 streams.arr");
    (src, exe)
}

#[test]
fn stream_variants_write_what_the_interpreter_computes() {
    let dir = tempfile::tempdir().unwrap();
    // Every output of more than 64 bytes takes the stream variant.
    let (src, exe) = build_streams(dir.path(), &[("ARRC_STREAM_MIN_BYTES", "64")]);
    let asm = support::arrc()
        .args(["build", "-O3", "--emit", "asm"])
        .arg(&src)
        .output()
        .unwrap();
    let asm = String::from_utf8(asm.stdout).unwrap();
    if cfg!(target_arch = "x86_64") {
        assert!(
            asm.contains("vmovntps") || asm.contains("movntps"),
            "no non-temporal store"
        );
    }
    for n in [1000, 100_003] {
        let input = format!("{n}i64 0.5f32");
        let expected = support::run_ok(support::arrc().arg("run").arg(&src), &input);
        support::agrees_on_threads(&exe, &input, &expected, &format!("n = {n}"));
    }
}

/// The exact-errors fallback (unfused, `-O0`, run only after an error) gets
/// no stream variants: they would be code it never vectorises.
#[test]
fn the_exact_errors_fallback_has_no_stream_variant() {
    let dir = tempfile::tempdir().unwrap();
    let (src, exe) = build_streams(dir.path(), &[]);
    let nm = Command::new("nm").arg(&exe).output().unwrap();
    assert!(nm.status.success(), "nm failed");
    let symbols = String::from_utf8(nm.stdout).unwrap();
    let streams: Vec<&str> = symbols
        .lines()
        .filter_map(|l| l.split_whitespace().last())
        .filter(|name| name.ends_with(".stream"))
        .collect();
    assert!(
        streams.iter().any(|n| n.starts_with("arr_entry_")),
        "no stream variant: {streams:?}"
    );
    assert!(
        symbols.contains("arr_exact_entry_"),
        "no exact-errors fallback"
    );
    assert!(
        !streams.iter().any(|n| n.starts_with("arr_exact_entry_")),
        "stream variant in the fallback: {streams:?}"
    );
    // An error still comes from the fallback, as the interpreter reports it.
    let expected = support::feed(support::arrc().arg("run").arg(&src), b"-3i64 0.5f32");
    let got = support::feed(&mut Command::new(&exe), b"-3i64 0.5f32");
    assert!(!got.status.success() && !expected.status.success());
    assert_eq!(
        String::from_utf8_lossy(&got.stderr),
        String::from_utf8_lossy(&expected.stderr)
    );
}
