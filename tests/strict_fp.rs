//! Fused multiply-adds (LANGUAGE.md section 6): by default a float multiply
//! feeding an add may round once; `--strict-fp` forbids it, and `arrc test`
//! then compares such an entry's floats bit for bit again.

mod support;

use std::process::Command;

const SRC: &str = "-- ==\n-- input { 1.000000000931322574615478515625 \
                   1.000000000931322574615478515625 -1.0000000018626451492309570312 }\n\
                   -- output { 0.0 }\n\
                   entry main (a: f64) (b: f64) (c: f64) : f64 = a * b + c\n";

/// Builds the program with `flags` and runs it on `a = b = 1 + 2^-30`,
/// `c = -(1 + 2^-29)`: rounded twice the result is 0, fused `2^-60`.
fn run(flags: &[&str]) -> String {
    build_and_run(
        SRC,
        flags,
        "1.000000000931322574615478515625f64 1.000000000931322574615478515625f64 \
         -1.0000000018626451492309570312f64",
    )
}

/// Builds `src` with `flags`, runs it on `input`; its output, trimmed.
fn build_and_run(src: &str, flags: &[&str], input: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("prog.arr");
    std::fs::write(&path, src).unwrap();
    let exe = dir.path().join("prog");
    let status = support::arrc()
        .arg("build")
        .args(flags)
        .arg(&path)
        .arg("-o")
        .arg(&exe)
        .status()
        .unwrap();
    assert!(status.success());
    let out = support::feed(&mut Command::new(&exe), input.as_bytes());
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn has_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[test]
fn multiply_adds_fuse_by_default_and_not_under_strict_fp() {
    assert_eq!(run(&["--strict-fp"]), "0.0f64");
    if has_fma() {
        let fused: f64 = run(&[]).trim_end_matches("f64").parse().unwrap();
        assert_eq!(fused, 2f64.powi(-60));
    }
}

#[test]
fn arrc_test_takes_contraction_into_account() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("fma.arr");
    std::fs::write(&src, SRC).unwrap();
    // The block's 0.0 is the interpreter's (unfused) result: exact under
    // `--strict-fp`, within the tolerance by default (2^-60 from it).
    for flags in [&[][..], &["--strict-fp"][..]] {
        let out = support::arrc()
            .arg("test")
            .args(flags)
            .arg(&src)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{flags:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// `SRC`'s values in a sequential loop, once round: an accumulator's sum
/// `acc + a * b` is not contracted (a fused multiply-add would lengthen
/// the chain the loop carries), but `acc * b + c`, whose multiply is on the
/// chain anyway, is.
#[test]
fn a_loops_carried_sum_is_not_contracted() {
    let carried = "entry main (n: i64) (a: f64) (b: f64) (c: f64) : f64 =\n\
                   \x20 loop acc = c for _i < n do acc + a * b\n";
    let chained = "entry main (n: i64) (a: f64) (b: f64) (c: f64) : f64 =\n\
                   \x20 loop acc = a for _i < n do acc * b + c\n";
    let input = "1i64 1.000000000931322574615478515625f64 1.000000000931322574615478515625f64 \
                 -1.0000000018626451492309570312f64";
    assert_eq!(run_src(carried, input), "0.0f64");
    if has_fma() {
        let fused: f64 = run_src(chained, input)
            .trim_end_matches("f64")
            .parse()
            .unwrap();
        assert_eq!(fused, 2f64.powi(-60));
    }
}

fn run_src(src: &str, input: &str) -> String {
    build_and_run(src, &["-O3"], input)
}
