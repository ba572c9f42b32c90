//! Guarded writes as AVX-512 masked stores (`cpu::masked`): a filter's
//! compaction stores each kept element under a mask where the processor
//! has AVX-512 and branches elsewhere, and computes what the interpreter
//! does for every element type the masks cover (and the ones they do not)
//! on every thread count and chunking.

mod support;

const FILTER: &str = "entry main (xs: []f32) : []f32 =\n  filter (\\x -> x > 0.5f32) xs\n";

fn emitted(dir: &std::path::Path, src: &str, cpu: &str, emit: &str) -> String {
    let path = dir.join("prog.arr");
    std::fs::write(&path, src).unwrap();
    let out = support::arrc()
        .args(["build", "-O3", "--cpu", cpu, "--emit", emit])
        .arg(&path)
        .output()
        .unwrap();
    support::ok(out, "arrc build --emit")
}

fn llvm_of(dir: &std::path::Path, src: &str, cpu: &str) -> String {
    emitted(dir, src, cpu, "llvm")
}

#[test]
fn filters_store_under_a_mask_only_with_avx512() {
    let dir = tempfile::tempdir().unwrap();
    let v4 = llvm_of(dir.path(), FILTER, "x86-64-v4");
    assert!(
        v4.contains("call void @llvm.masked.store.v4f32"),
        "no masked store in:\n{v4}"
    );
    // The compaction loop stores under a mask made by one `kmov` of the
    // condition's bits, without the two shifts that would clear lanes.
    let asm = emitted(dir.path(), FILTER, "x86-64-v4", "asm");
    let start = asm
        .find("\narr_entry_0.loop0.cluster0:")
        .expect("no loop function");
    let body = &asm[start..];
    let body = &body[..body.find(".Lfunc_end").unwrap_or(body.len())];
    assert!(body.contains("{%k"), "no masked store in:\n{body}");
    assert!(!body.contains("kshift"), "mask shifts in:\n{body}");
    let v3 = llvm_of(dir.path(), FILTER, "x86-64-v3");
    assert!(
        !v3.contains("llvm.masked.store"),
        "a masked store in:\n{v3}"
    );
    // Bytes are not masked by AVX-512F: their filter keeps its branch.
    let bytes = "entry main (xs: []i8) : []i8 =\n  filter (\\x -> x > 3i8) xs\n";
    let ir = llvm_of(dir.path(), bytes, "x86-64-v4");
    assert!(
        !ir.contains("llvm.masked.store"),
        "a masked store in:\n{ir}"
    );
}

#[test]
fn masked_filters_compute_what_the_interpreter_does() {
    let dir = tempfile::tempdir().unwrap();
    // Pseudo-random keeps (a multiplicative hash), so that kept and dropped
    // elements alternate irregularly across chunk boundaries.
    for (k, body) in [
        "filter (\\i -> i * 2654435761 % 1000 < 500) (iota n)",
        "filter (\\x -> i64.f32 x * 2654435761 % 1000 < 500) (map f32.i64 (iota n))",
        "filter (\\x -> i64.f64 x * 2654435761 % 1000 < 500) (map f64.i64 (iota n))",
        "filter (\\x -> i64.i32 x * 2654435761 % 1000 < 500) (map i32.i64 (iota n))",
        "filter (\\x -> x % 3 == 0) (map i8.i64 (iota n))",
        "partition (\\i -> i * 2654435761 % 1000 < 500) (iota n)",
    ]
    .into_iter()
    .enumerate()
    {
        support::built_at_o3_agrees_for_sizes(
            dir.path(),
            &format!("filter{k}"),
            &format!("entry main (n: i64) =\n  {body}\n"),
            &[0, 1, 1000, 100_003],
        );
    }
}
