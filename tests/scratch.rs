//! Issue 20's patterns in `--emit loopy`: no heap allocation inside a
//! parallel nest (an array an iteration makes is fused away or lives in
//! per-thread scratch, `alloc thread`), and the small constant loops of a
//! 3 x 3 window unrolled. Results are checked elsewhere: the programs'
//! test blocks run in the golden suite and `arrc test`.

use std::path::Path;
use std::process::Command;

fn loopy(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(env!("CARGO_BIN_EXE_arrc"))
        .args(["build", "-O3", "--emit", "loopy"])
        .arg(root.join(path))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{path}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The `alloc` lines inside a `launch loop` (deeper than it), other than
/// per-thread scratch.
fn allocs_in_parallel_nests(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut nest: Option<usize> = None;
    for line in text.lines() {
        let depth = indent(line);
        if nest.is_some_and(|d| depth <= d) {
            nest = None;
        }
        let t = line.trim_start();
        if nest.is_none() && t.starts_with("launch loop") {
            nest = Some(depth);
        } else if nest.is_some() && t.starts_with("alloc ") && !t.starts_with("alloc thread ") {
            found.push(line.to_string());
        }
    }
    found
}

#[test]
fn no_heap_allocation_inside_parallel_nests() {
    for path in [
        "benches/programs/kmeans2.arr",
        "benches/programs/kmeans.arr",
        "benches/programs/conv3.arr",
        "tests/programs/scratch_memory.arr",
        "tests/stdlib/argmax_argmin.arr",
    ] {
        let text = loopy(path);
        let bad = allocs_in_parallel_nests(&text);
        assert!(bad.is_empty(), "{path}: {bad:?}\n{text}");
    }
}

#[test]
fn arrays_that_cannot_fuse_take_per_thread_scratch() {
    let text = loopy("tests/programs/scratch_memory.arr");
    // `spread` (run-time size k), `window` (constant 3) and `per_step`.
    let threads = text.matches("alloc thread ").count();
    assert!(threads >= 3, "{text}");
}

#[test]
fn argmin_of_a_map_is_one_loop() {
    let text = loopy("benches/programs/kmeans2.arr");
    // The distances are never stored: the map fuses into argmin's reduce,
    // the only nest inside the nest over the points.
    let inner: Vec<&str> = text
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("loop "))
        .collect();
    assert!(
        inner.len() == 1 && inner[0].starts_with("loop reduce"),
        "{text}"
    );
    assert_eq!(allocs_in_parallel_nests(&text), Vec::<String>::new());
}

#[test]
fn a_three_by_three_window_is_unrolled() {
    let text = loopy("benches/programs/conv3.arr");
    assert!(!text.contains("< 3i64"), "{text}");
    // Nine products, each with its kernel read.
    assert_eq!(text.matches("= ker_").count(), 9, "{text}");
}
