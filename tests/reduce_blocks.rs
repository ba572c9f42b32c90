//! Reduction nests fold blocks of iterations from the neutral carry only
//! where they carry a float narrower than `f64` (`reduce_block` of
//! `arr_nest`, `REDUCE_BLOCK` in `codegen::cpu::nest`): an `f64` or integer
//! reduction (or one of both) runs a chunk at once, which keeps a streaming loop's
//! halves and prefetches going, and computes what the interpreter does on
//! every thread count and chunking.

mod support;

/// Reductions whose every partial total is exact (integers well below
/// 2^24), so that any order of additions gives the interpreter's result:
/// one nest each, blocked (an `f32` among the carried values) or not.
const SOURCES: [&str; 5] = [
    "reduce (+) 0f32 xs",
    "reduce (+) 0f64 (map f64.f32 xs)",
    "reduce (+) 0i64 (map i64.f32 xs)",
    "reduce (\\(p, q) (r, s) -> (p + r, q + s)) (0f64, 0f32) (map (\\x -> (f64.f32 x, x * 2f32)) xs)",
    "reduce (\\(p, q) (r, s) -> (p + r, q + s)) (0f64, 0i32) (map (\\x -> (f64.f32 x, i32.f32 x)) xs)",
];

fn llvm_of(dir: &std::path::Path, name: &str, src: &str) -> String {
    let path = dir.join(format!("{name}.arr"));
    std::fs::write(&path, src).unwrap();
    let out = support::arrc()
        .args(["build", "-O3", "--emit", "llvm"])
        .arg(&path)
        .output()
        .unwrap();
    support::ok(out, "arrc build --emit llvm")
}

#[test]
fn only_sums_of_narrow_floats_fold_in_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let f32_sum = llvm_of(
        dir.path(),
        "f32",
        "entry main (xs: []f32) : f32 = reduce (+) 0f32 xs\n",
    );
    assert!(f32_sum.contains("i64 16384"), "{f32_sum}");
    for (name, src) in [
        (
            "f64",
            "entry main (xs: []f32) : f64 = reduce (+) 0f64 (map f64.f32 xs)\n",
        ),
        ("i64", "entry main (xs: []i64) : i64 = reduce (+) 0i64 xs\n"),
    ] {
        let ir = llvm_of(dir.path(), name, src);
        assert!(ir.contains("@arr_run_nest"), "{name}: no parallel nest");
        assert!(!ir.contains("16384"), "{name}: folds in blocks\n{ir}");
    }
}

#[test]
fn blocked_and_whole_chunk_sums_compute_what_the_interpreter_does() {
    let dir = tempfile::tempdir().unwrap();
    for (k, body) in SOURCES.iter().enumerate() {
        let program = format!(
            "entry main (n: i64) =\n  let xs = map (\\i -> f32.i64 (i % 7)) (iota n)\n  in {body}\n"
        );
        support::built_at_o3_agrees_for_sizes(
            dir.path(),
            &format!("sum{k}"),
            &program,
            &[0, 1000, 16385, 100_003],
        );
    }
}
