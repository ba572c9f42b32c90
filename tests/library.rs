//! Libraries (`arrc build --library`, `--python`; docs/library.md): the C
//! example of the docs compiled against its header and run, the Python
//! example run, the Python modules of the golden programs against the
//! interpreter (run-time errors raised, not fatal; a GPU module's too, on
//! the emulator, with the interpreter's first error), the GIL released during
//! a call, and a compiled kernel mapped over a dask array's chunks on a
//! real `LocalCluster`. Python needs numpy, futhark-data and
//! dask[distributed] (tests/deps.sh installs them).

mod support;

use arrc::driver::testblock::{parse_blocks, Expect, Input};
use arrc::runtime::value::{compare, read_values, write_binary, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use support::{arrc, build, library, ok, python, root, run_main, valgrind};

/// The code blocks of docs/library.md fenced as ```` ```LANG ````.
fn doc_blocks(lang: &str) -> Vec<String> {
    let doc = std::fs::read_to_string(root().join("docs/library.md")).unwrap();
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for line in doc.lines() {
        match &mut current {
            None if line.trim_end() == format!("```{lang}") => current = Some(String::new()),
            Some(text) if line.trim_end() == "```" => {
                out.push(std::mem::take(text));
                current = None;
            }
            Some(text) => {
                text.push_str(line);
                text.push('\n');
            }
            None => {}
        }
    }
    out
}

/// The program, the C example and the Python example of the docs, and the
/// output both examples print (the block fenced as ```` ```text ````).
fn doc_example(dir: &Path) -> PathBuf {
    let program = doc_blocks("futhark");
    assert_eq!(program.len(), 1, "docs/library.md has one Arr program");
    let path = dir.join("saxpy.arr");
    std::fs::write(&path, &program[0]).unwrap();
    path
}

fn expected_example_output() -> String {
    let text = doc_blocks("text");
    assert!(
        !text.is_empty(),
        "docs/library.md shows the examples' output"
    );
    text[0].clone()
}

#[test]
fn the_c_example_of_the_docs_compiles_against_its_header_and_runs() {
    let dir = tempfile::tempdir().unwrap();
    let program = doc_example(dir.path());
    ok(
        arrc()
            .current_dir(dir.path())
            .args(["build", "--library"])
            .arg(program.file_name().unwrap())
            .output()
            .unwrap(),
        "arrc build --library",
    );
    assert!(dir.path().join("saxpy.h").is_file());
    assert!(dir.path().join("libsaxpy.so").is_file());
    let c = doc_blocks("c");
    assert_eq!(c.len(), 1, "docs/library.md has one C example");
    std::fs::write(dir.path().join("example.c"), &c[0]).unwrap();
    ok(
        Command::new("cc")
            .current_dir(dir.path())
            .args(["-std=c11", "-Wall", "-Werror", "-o", "example", "example.c"])
            .args(["-I.", "-L.", "-lsaxpy", "-Wl,-rpath,$ORIGIN"])
            .output()
            .unwrap(),
        "cc example.c",
    );
    let out = ok(
        Command::new(dir.path().join("example")).output().unwrap(),
        "the C example",
    );
    assert_eq!(out, expected_example_output());
    // Only the API is exported: no runtime symbol another library could
    // bind to.
    let symbols = ok(
        Command::new("nm")
            .args(["-D", "--defined-only"])
            .arg(dir.path().join("libsaxpy.so"))
            .output()
            .unwrap(),
        "nm",
    );
    for line in symbols.lines() {
        let name = line.split_whitespace().last().unwrap_or("");
        assert!(name.starts_with("arrc_"), "exported: {line}");
    }
}

#[test]
fn the_python_example_of_the_docs_runs() {
    let dir = tempfile::tempdir().unwrap();
    let program = doc_example(dir.path());
    ok(
        arrc()
            .current_dir(dir.path())
            .args(["build", "--python"])
            .arg(program.file_name().unwrap())
            .output()
            .unwrap(),
        "arrc build --python",
    );
    let py = doc_blocks("python");
    assert!(!py.is_empty(), "docs/library.md has a Python example");
    let out = ok(python(dir.path(), &py[0]), "the Python example");
    assert_eq!(out, expected_example_output());
}

/// The entries, inputs and interpreter results of a golden program's test
/// cases with literal inputs.
struct Case {
    entry: String,
    input: Vec<Value>,
    expected: Result<Vec<Value>, String>,
}

fn golden_cases(path: &Path) -> Vec<Case> {
    let source = std::fs::read_to_string(path).unwrap();
    let Ok(blocks) = parse_blocks(&source) else {
        return Vec::new();
    };
    if blocks.iter().any(|b| b.tags.iter().any(|t| t == "disable")) {
        return Vec::new();
    }
    let Ok(program) = arrc::driver::pipeline::lowered(path) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for case in blocks.iter().flat_map(|b| &b.cases) {
        let Input::Text(text) = &case.input else {
            continue;
        };
        let entries = if case.entries.is_empty() {
            vec!["main".to_string()]
        } else {
            case.entries.clone()
        };
        for entry in entries {
            let Some(f) = program.entries.iter().find(|f| f.name == entry) else {
                continue;
            };
            let types: Vec<_> = f.params.iter().map(|p| p.ty).collect();
            let Ok(input) = read_values(text.as_bytes(), &types) else {
                continue;
            };
            let expected = match arrc::interp::run_entry(&program, &entry, input.clone()) {
                Ok(values) => Ok(values),
                Err(arrc::interp::RunError::Program(message)) => Err(message),
                Err(_) => continue,
            };
            if matches!(case.expect, Expect::Error(_)) != expected.is_err() {
                continue;
            }
            out.push(Case {
                entry: entry.clone(),
                input,
                expected,
            });
        }
    }
    out
}

/// Runs every case through the module `prog` in `dir`: each input file
/// `N.in` (binary values) gives `N.out` (binary results) or `N.err` (the
/// message of the `prog.Error` raised).
const RUN_CASES: &str = r#"
import sys, futhark_data, prog
for i, entry in enumerate(sys.argv[1:]):
    types = [t for _, t in getattr(prog, "_params_" + entry)]
    types += list(getattr(prog, "_results_" + entry))
    if any(isinstance(t, type) for t in types):
        # An opaque parameter or result (a tuple parameter, a nested
        # tuple result): the flattened values do not fit.
        open("%d.skip" % i, "w").close()
        continue
    with open("%d.in" % i, "rb") as f:
        args = list(futhark_data.load(f))
    try:
        r = getattr(prog, entry)(*args)
    except prog.Error as e:
        with open("%d.err" % i, "w") as f:
            f.write(str(e))
        continue
    with open("%d.out" % i, "wb") as f:
        for v in (r if isinstance(r, tuple) else (r,)):
            futhark_data.dump(v, f, True)
"#;

/// What `check_modules` found: cases compared, run-time errors among them,
/// cases skipped (opaque values), and the mismatches.
#[derive(Default)]
struct Checked {
    cases: usize,
    errors: usize,
    skipped: usize,
    failures: Vec<String>,
}

/// Builds each of `programs` as a Python module with `flags` and runs its
/// literal test cases through it under each of `envs` (environment
/// variables), comparing results and raised errors with the interpreter's.
fn check_modules(programs: &[PathBuf], flags: &[&str], envs: &[Vec<(&str, &str)>]) -> Checked {
    let mut checked = Checked::default();
    for (n, path) in programs.iter().enumerate() {
        let cases = golden_cases(path);
        if cases.is_empty() {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let built = arrc()
            .arg("build")
            .arg("--python")
            .args(flags)
            .arg(path)
            .arg("-o")
            .arg(dir.path().join("prog"))
            .output()
            .unwrap();
        ok(built, &format!("arrc build --python {}", path.display()));
        for (i, case) in cases.iter().enumerate() {
            let mut bytes = Vec::new();
            for v in &case.input {
                write_binary(v, &mut bytes);
            }
            std::fs::write(dir.path().join(format!("{i}.in")), bytes).unwrap();
        }
        let entries: Vec<&str> = cases.iter().map(|c| c.entry.as_str()).collect();
        for env in envs {
            let mut run = Command::new("python3");
            run.current_dir(dir.path())
                .arg("-c")
                .arg(RUN_CASES)
                .args(&entries)
                .envs(env.iter().copied());
            if n % 2 == 1 {
                // Every other program on the portable copy of the entries, the
                // others on the x86-64-v3 one where this processor has it.
                run.env("ARRC_NO_WIDE", "1");
            }
            let run = run.output().unwrap();
            ok(run, &format!("the Python module of {}", path.display()));
            for (i, case) in cases.iter().enumerate() {
                let name = format!("{} ({}, case {i}, {env:?})", path.display(), case.entry);
                compare_case(&mut checked, dir.path(), i, case, &name);
            }
        }
    }
    checked
}

/// Compares case `i`'s files in `dir` (left by `RUN_CASES`) with `case`.
fn compare_case(checked: &mut Checked, dir: &Path, i: usize, case: &Case, name: &str) {
    let out = std::fs::read(dir.join(format!("{i}.out")));
    let err = std::fs::read_to_string(dir.join(format!("{i}.err")));
    if dir.join(format!("{i}.skip")).exists() {
        checked.skipped += 1;
        return;
    }
    let failures = &mut checked.failures;
    match (&case.expected, out, err) {
        (Ok(expected), Ok(bytes), _) => {
            let types: Vec<_> = expected.iter().map(Value::ty).collect();
            match read_values(&bytes, &types) {
                Ok(actual) => {
                    for (a, e) in actual.iter().zip(expected) {
                        if let Err(why) = compare(a, e) {
                            failures.push(format!("{name}: {why}"));
                        }
                    }
                }
                Err(e) => failures.push(format!("{name}: unreadable results: {e:?}")),
            }
        }
        (Err(message), _, Ok(raised)) => {
            checked.errors += 1;
            if raised.trim() != message.trim() {
                failures.push(format!("{name}: raised `{raised}`, expected `{message}`"));
            }
        }
        (expected, _, _) => failures.push(format!("{name}: expected {expected:?}")),
    }
    // Leftovers would be read by the next environment's comparison.
    for ext in ["out", "err"] {
        let _ = std::fs::remove_file(dir.join(format!("{i}.{ext}")));
    }
    checked.cases += 1;
}

/// The golden programs (`tests/programs/*.arr`), sorted.
fn golden_programs() -> Vec<PathBuf> {
    let mut programs: Vec<PathBuf> = std::fs::read_dir(root().join("tests/programs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "arr"))
        .collect();
    programs.sort();
    programs
}

#[test]
fn python_modules_of_the_golden_programs_match_the_interpreter() {
    let checked = check_modules(&golden_programs(), &[], &[vec![]]);
    assert!(
        checked.failures.is_empty(),
        "{}",
        checked.failures.join("\n")
    );
    assert!(checked.cases >= 50, "only {} cases checked", checked.cases);
    assert!(
        checked.errors >= 3,
        "only {} run-time errors checked",
        checked.errors
    );
    assert!(
        checked.skipped <= 3,
        "{} cases skipped for opaque values",
        checked.skipped
    );
}

/// A GPU library reports the interpreter's first error, as a GPU
/// executable does: after a failed call it re-runs the entry unfused on the
/// CPU, on host copies of its device arguments (docs/library.md, "On the
/// GPU"). The programs tagged `cpu_exact_errors` fail in a later statement
/// first when fused; the others fail inside kernels of every kind (scans
/// and filters in early and late tiles, reductions, histograms, rows).
#[test]
fn a_gpu_library_reports_the_interpreters_first_error() {
    let programs: Vec<PathBuf> = golden_programs()
        .into_iter()
        .filter(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            text.contains("cpu_exact_errors")
                || ["scan_lookback", "hist_private", "row_reduce", "segmented"]
                    .iter()
                    .any(|name| p.file_stem().is_some_and(|s| s == *name))
        })
        .collect();
    let emu = ["--target", "nvptx-emu"];
    let envs: Vec<Vec<(&str, &str)>> = ["1", "3"]
        .iter()
        .map(|threads| vec![("ARRC_GPU_SHRINK", "1"), ("ARRC_THREADS", *threads)])
        .collect();
    let checked = check_modules(&programs, &emu, &envs);
    assert!(
        checked.failures.is_empty(),
        "{}",
        checked.failures.join("\n")
    );
    assert!(
        checked.errors >= 12,
        "only {} run-time errors checked",
        checked.errors
    );
}

/// A kernel that runs long enough to watch: `n` rounds of a loop per
/// element.
const SLOW: &str = "entry slow (xs: []f32) (n: i32) : []f32 =\n  \
    map (\\x -> loop acc = x for i < n do acc * 0.999f32 + f32.i32 (i % 3)) xs\n\n\
    entry twice (xs: []f32) : []f32 = map (\\x -> 2 * x) xs\n";

fn build_python(dir: &Path, name: &str, source: &str) {
    let path = dir.join(format!("{name}.arr"));
    std::fs::write(&path, source).unwrap();
    ok(
        arrc()
            .current_dir(dir)
            .args(["build", "--python"])
            .arg(&path)
            .output()
            .unwrap(),
        "arrc build --python",
    );
}

/// Entry points named like Python builtins or keywords: the module's own
/// code must keep using the builtins, and every entry stays reachable.
#[test]
fn entry_points_named_like_python_builtins_and_keywords_work() {
    let dir = tempfile::tempdir().unwrap();
    let source = "entry len (xs: []i32) : i64 = length xs\n\
        entry sum (xs: []i32) : i32 = reduce (+) 0 xs\n\
        entry pass (x: i32) : i32 = x + 1\n\
        entry twice (x: i32) : i32 = 2 * x\n";
    build_python(dir.path(), "names", source);
    let script = r#"
import numpy as np, names
from names import len as entry_len
xs = np.arange(5, dtype=np.int32)
ctx = names.Context()
got = (names.len(xs), entry_len(xs), names.sum(xs), getattr(names, "pass")(4),
       ctx.len(xs), ctx.sum(xs), getattr(ctx, "pass")(1), names.twice(3))
assert got == (5, 5, 10, 5, 5, 10, 2, 6), got
assert {"len", "sum", "pass", "twice"} <= set(dir(names))
assert names.len.__name__ == "len" and names.Context.len.__qualname__ == "Context.len"
try:
    names.missing
except AttributeError:
    print("ok")
"#;
    let out = ok(python(dir.path(), script), "builtin-named entries");
    assert!(out.starts_with("ok"), "{out}");
}

/// A library's caller keeps its arrays: entries whose executable writes
/// into a dead argument (`loopy::donate`: a map's output, an update in
/// place, a consumed `*[]t` one too) leave the caller's arrays as they were.
#[test]
fn a_librarys_entries_leave_the_callers_arrays_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let source = "entry saxpy [n] (a: f32) (xs: [n]f32) (ys: [n]f32) : [n]f32 =\n  \
        map2 (\\x y -> a * x + y) xs ys\n\n\
        entry update (xs: *[]i32) (i: i64) : []i32 =\n  let xs[i] = 7\n  in xs\n\n\
        entry both (xs: []i32) : ([]i32, []i32) = (map (+ 1) xs, xs)\n";
    build_python(dir.path(), "keep", source);
    let script = r#"
import numpy as np, keep
xs = np.arange(4, dtype=np.float32)
ys = np.full(4, 10, dtype=np.float32)
out = np.asarray(keep.saxpy(np.float32(2), xs, ys))
assert out.tolist() == [10, 12, 14, 16], out
# The same array for both parameters.
out = np.asarray(keep.saxpy(np.float32(2), xs, xs))
assert out.tolist() == [0, 3, 6, 9], out
assert xs.tolist() == [0, 1, 2, 3] and ys.tolist() == [10] * 4, (xs, ys)
zs = np.array([1, 2, 3], dtype=np.int32)
assert np.asarray(keep.update(zs, 1)).tolist() == [1, 7, 3]
a, b = keep.both(zs)
assert np.asarray(a).tolist() == [2, 3, 4] and np.asarray(b).tolist() == [1, 2, 3]
assert zs.tolist() == [1, 2, 3], zs
print("ok")
"#;
    let out = ok(python(dir.path(), script), "arguments kept");
    assert!(out.starts_with("ok"), "{out}");
}

/// Futhark's Python modules are used through a class named like the
/// module, `prog.prog().main(...)`; arrc's module has one too (a
/// `Context`), unless an entry point takes the name.
#[test]
fn the_module_has_futharks_class_named_like_it() {
    let dir = tempfile::tempdir().unwrap();
    build_python(
        dir.path(),
        "dotprod",
        "entry main (xs: []f32) (ys: []f32) : f32 = reduce (+) 0 (map2 (*) xs ys)\n",
    );
    build_python(
        dir.path(),
        "twice",
        "entry twice (x: i32) : i32 = 2 * x\nentry inc (x: i32) : i32 = x + 1\n",
    );
    // Named like an exception the module's code raises: no class.
    build_python(dir.path(), "ValueError", "entry main (x: i32) : i32 = x\n");
    let script = r#"
import numpy as np, dotprod, twice
from dotprod import dotprod as Dotprod
d = Dotprod(interactive=False, platform_pref=None)
xs = np.arange(3, dtype=np.float32)
assert d.main(xs, xs) == 5.0 and isinstance(d, dotprod.Context)
with dotprod.dotprod(threads=1) as e:
    assert e.main(xs, xs + 1) == 8.0
# An entry point keeps its name.
assert twice.twice(4) == 8 and twice.inc(1) == 2
import ValueError as named_like_an_exception
ctx = named_like_an_exception.Context()
ctx.close()
try:
    ctx.main(1)
except ValueError:
    print("ok")
"#;
    let out = ok(python(dir.path(), script), "Futhark's class");
    assert!(out.starts_with("ok"), "{out}");
}

#[test]
fn entry_points_named_like_the_modules_own_names_get_a_trailing_underscore() {
    let dir = tempfile::tempdir().unwrap();
    let source = "type Error = {a: f32, b: f32}\n\
        entry Context (x: i32) : i32 = x + 1\n\
        entry close (x: i32) : i32 = x * 2\n\
        entry _fn (x: i32) : i32 = x - 1\n\
        entry mk (x: f32) : Error = {a = x, b = x + 1}\n";
    build_python(dir.path(), "clash", source);
    let script = r#"
import clash
ctx = clash.Context(threads=1)
got = (clash.Context_(1), clash.close_(2), clash._fn_(3), ctx.Context_(4), ctx.close_(5),
       clash.mk(1.0).b)
assert got == (2, 4, 2, 5, 10, 2.0), got
assert issubclass(clash.Error, Exception) and isinstance(ctx, clash.Context)
ctx.close()
try:
    ctx.close_(1)
except ValueError:
    print("ok")
"#;
    let out = ok(
        python(dir.path(), script),
        "entries named like the module's names",
    );
    assert!(out.starts_with("ok"), "{out}");
}

#[test]
fn the_gil_is_released_while_compiled_code_runs() {
    let dir = tempfile::tempdir().unwrap();
    build_python(dir.path(), "slow", SLOW);
    // Another Python thread counts while the main thread is inside one
    // call; with the GIL held it could not count at all meanwhile.
    let script = r#"
import threading, time, numpy as np, slow
xs = np.ones(2000, dtype=np.float32)
ctx = slow.Context(threads=1)
n = 1000
while True:
    t0 = time.time(); ctx.slow(xs, n); t = time.time() - t0
    if t > 0.3 or n > 10**8:
        break
    n *= 4
stop = False
ticks = []
def count():
    while not stop:
        ticks.append(time.time())
        time.sleep(0.001)
th = threading.Thread(target=count)
th.start()
time.sleep(0.05)
t0 = time.time(); ctx.slow(xs, n); t1 = time.time()
stop = True
th.join()
inside = [t for t in ticks if t0 < t < t1]
assert len(inside) >= 10, (len(inside), t1 - t0)
print("ok", len(inside))
"#;
    let out = ok(python(dir.path(), script), "the GIL test");
    assert!(out.starts_with("ok"), "{out}");
}

#[test]
fn a_kernel_maps_over_dask_chunks_on_a_local_cluster() {
    let dir = tempfile::tempdir().unwrap();
    build_python(dir.path(), "slow", SLOW);
    // Worker processes (not threads) on loopback; the module is shipped
    // with upload_file as docs/library.md says, and also importable from
    // the directory the workers start in.
    let script = r#"
import numpy as np, dask.array as da
from dask.distributed import Client, LocalCluster

def kernel(block):
    import slow
    return slow.twice(block)

if __name__ == "__main__":
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           host="127.0.0.1", dashboard_address=None)
    client = Client(cluster)
    client.upload_file("libslow.so")
    client.upload_file("slow.py")
    x = np.random.default_rng(1).random(1_000_003).astype(np.float32)
    dx = da.from_array(x, chunks=100_000)
    r = da.map_blocks(kernel, dx, dtype=np.float32).compute()
    import slow
    whole = slow.twice(x)
    assert r.dtype == np.float32 and r.shape == x.shape
    assert np.array_equal(r, whole)
    workers = client.run(lambda: __import__("os").getpid())
    assert len(set(workers.values())) == 2
    client.close()
    cluster.close()
    print("ok", dx.numblocks[0])
"#;
    std::fs::write(dir.path().join("run_dask.py"), script).unwrap();
    let out = ok(
        Command::new("python3")
            .current_dir(dir.path())
            .arg("run_dask.py")
            .env("PYTHONPATH", dir.path())
            .output()
            .unwrap(),
        "the Dask test",
    );
    assert!(out.starts_with("ok 11"), "{out}");
}

/// Run-time errors in sequential code and inside parallel chunks (maps,
/// reductions, scans, histograms), each met several times on one context:
/// every call returns the executable's message, the context stays usable,
/// and valgrind finds no leak and no bad access.
const FAILING: &str = "entry div (xs: []i32) (d: i32) : []i32 = map (\\x -> x / (x - d)) xs\n\
entry sum_div (xs: []i32) (d: i32) : i32 = reduce (+) 0 (map (\\x -> 100 / (x - d)) xs)\n\
entry scan_idx (xs: []i64) : []i64 = scan (+) 0 (map (\\i -> xs[i]) xs)\n\
entry hist_at (xs: []i64) : []i32 = hist (+) 0 4 xs (map (\\x -> i32.i64 (100 / x)) xs)\n\
entry nested (n: i64) : [][]i64 = map (\\i -> map (\\j -> assert (j != 7) (i * j)) (iota n)) (iota n)\n";

const FAILING_C: &str = r#"
#include "failing.h"
#include <stdio.h>
#include <stdlib.h>

static int report(struct arrc_context *ctx, int rc) {
    char *e = arrc_context_get_error(ctx);
    printf("%d %s", rc, e ? e : "ok\n");
    free(e);
    return rc;
}

int main(void) {
    struct arrc_context_config *cfg = arrc_context_config_new();
    arrc_context_config_set_threads(cfg, 3);
    struct arrc_context *ctx = arrc_context_new(cfg), *other = arrc_context_new(cfg);
    arrc_context_config_free(cfg);
    enum { N = 1000 };
    int32_t xs[N];
    int64_t is[N];
    for (int i = 0; i < N; i++) { xs[i] = i; is[i] = i % 4 + 1; }
    struct arrc_i32_1d *a = arrc_new_i32_1d(ctx, xs, N), *r;
    struct arrc_i64_1d *b = arrc_new_i64_1d(ctx, is, N), *s;
    struct arrc_i64_2d *m;
    int32_t sum;
    for (int k = 0; k < 3; k++) {
        report(ctx, arrc_entry_div(ctx, &r, a, 500));
        report(ctx, arrc_entry_sum_div(ctx, &sum, a, 900));
        is[N - 3] = 5000;
        struct arrc_i64_1d *bad = arrc_new_i64_1d(ctx, is, N);
        report(ctx, arrc_entry_scan_idx(ctx, &s, bad));
        is[N - 3] = 0;
        struct arrc_i64_1d *zero = arrc_new_i64_1d(ctx, is, N);
        is[N - 3] = 1;
        report(ctx, arrc_entry_hist_at(ctx, &r, zero));
        arrc_free_i64_1d(ctx, bad);
        arrc_free_i64_1d(ctx, zero);
        report(ctx, arrc_entry_nested(ctx, &m, 100));
    }
    /* A call that succeeds after all those errors. */
    if (report(ctx, arrc_entry_div(ctx, &r, a, -1)) == 0) {
        int32_t out[N];
        arrc_values_i32_1d(ctx, r, out);
        printf("div %d %d\n", out[1], out[N - 1]);
        arrc_free_i32_1d(ctx, r);
    }
    if (report(other, arrc_entry_scan_idx(other, &s, b)) == 0) {
        printf("scan %lld\n", (long long)arrc_shape_i64_1d(other, s)[0]);
        arrc_free_i64_1d(other, s);
    }
    arrc_free_i32_1d(ctx, a);
    arrc_free_i64_1d(ctx, b);
    arrc_context_free(ctx);
    arrc_context_free(other);
    return 0;
}
"#;

#[test]
fn run_time_errors_return_from_the_library_and_leave_the_context_usable() {
    let dir = tempfile::tempdir().unwrap();
    library(
        dir.path(),
        "failing",
        FAILING,
        &["--library"],
        Some(FAILING_C),
    );
    let once = "1 Error: division by zero at failing.arr:1:53\n\
                1 Error: division by zero at failing.arr:2:69\n\
                1 Error: index 5000 out of bounds for array of length 1000 at failing.arr:3:61\n\
                1 Error: division by zero at failing.arr:4:74\n\
                1 Error: assertion failed at failing.arr:5:57: Assertion is false: j != 7\n";
    let expected = format!("{once}{once}{once}0 ok\ndiv 0 0\n0 ok\nscan 1000\n");
    // Tiny grains send the small inputs through the parallel strategies.
    let out = valgrind(dir.path(), &[("ARRC_GRAIN", "1")]);
    assert_eq!(out, expected);
}

/// A GPU library where there is no CUDA driver (`ARRC_CUDA_LIBRARY` names
/// a file that does not exist, so that a machine with a GPU behaves the
/// same), or a driver that fails: the context comes back holding the
/// error, every call fails with it, and the process goes on.
const NO_DRIVER: &str = "entry twice (x: f32) : f32 = 2 * x\n\
    entry sum (xs: []f32) : f32 = f32.sum xs\n";

const NO_DRIVER_C: &str = r#"
#include "nodrv.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The error's text up to the driver's own words (which vary). */
static void show(struct arrc_context *ctx, const char *what) {
    char *e = arrc_context_get_error(ctx);
    if (e == NULL) {
        printf("%s: no error\n", what);
        return;
    }
    char *why = strstr(e, " (");
    if (why != NULL) {
        *why = '\0';
    }
    printf("%s: %s\n", what, e);
    free(e);
}

int main(void) {
    struct arrc_context_config *cfg = arrc_context_config_new();
    struct arrc_context *ctx = arrc_context_new(cfg);
    arrc_context_config_free(cfg);
    if (ctx == NULL) {
        return 1;
    }
    show(ctx, "new");
    show(ctx, "again");
    float x = 1, r = 0;
    struct arrc_f32_1d *xs = arrc_new_f32_1d(ctx, &x, 1);
    printf("array %s\n", xs == NULL ? "NULL" : "made");
    show(ctx, "arrc_new_f32_1d");
    printf("rc %d\n", arrc_entry_twice(ctx, &r, 2));
    show(ctx, "arrc_entry_twice");
    arrc_context_free(ctx);
    printf("still running\n");
    return 0;
}
"#;

#[test]
fn a_gpu_library_without_a_driver_returns_errors_and_never_exits() {
    let dir = tempfile::tempdir().unwrap();
    let nvptx = ["--library", "--target", "nvptx"];
    library(dir.path(), "nodrv", NO_DRIVER, &nvptx, Some(NO_DRIVER_C));
    build(dir.path(), &["--python", "--target", "nvptx", "nodrv.arr"]);
    let missing = "/nonexistent/libcuda.so.1";
    // The stand-in driver of tests/gpu finds no GPU, or rejects the PTX
    // (what an executable reports as an internal error, exit 70).
    let fake = dir.path().join("libcuda.so.1");
    ok(
        Command::new("cc")
            .args(["-std=c11", "-shared", "-fPIC"])
            .arg(root().join("tests/gpu/fake_cuda.c"))
            .arg("-o")
            .arg(&fake)
            .output()
            .unwrap(),
        "cc fake_cuda.c",
    );
    let fake = fake.to_str().unwrap();
    let cases = [
        (
            missing,
            "",
            format!("Error: no CUDA driver: cannot load {missing}"),
        ),
        (fake, "nodevice", "Error: no CUDA GPU found".to_string()),
        (
            fake,
            "badptx",
            "Error: internal compiler error: CUDA: the driver rejected the PTX".to_string(),
        ),
    ];
    for (driver, mode, start) in cases {
        let env = [("ARRC_CUDA_LIBRARY", driver), ("FAKE_CUDA", mode)];
        let out = run_main(dir.path(), &env);
        let error = out.lines().next().unwrap_or("").trim_start_matches("new: ");
        assert!(error.starts_with(&start), "{out}");
        let expected = format!(
            "new: {error}\nagain: no error\narray NULL\narrc_new_f32_1d: {error}\n\
             rc 1\narrc_entry_twice: {error}\nstill running\n"
        );
        assert_eq!(out, expected);
    }
    let script = r#"
import numpy as np, nodrv
for attempt in (lambda: nodrv.Context(), lambda: nodrv.twice(1.0)):
    try:
        attempt()
        raise SystemExit("no error")
    except nodrv.Error as e:
        assert str(e).startswith("no CUDA driver: cannot load /nonexistent/"), e
print("ok")
"#;
    let run = Command::new("python3")
        .current_dir(dir.path())
        .env("ARRC_CUDA_LIBRARY", missing)
        .arg("-c")
        .arg(script)
        .output()
        .unwrap();
    assert_eq!(ok(run, "the Python module without a driver"), "ok\n");
}
