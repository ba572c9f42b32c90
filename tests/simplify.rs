//! Golden tests of the core IR simplifier (issue 4).
//!
//! Each program in `tests/simplify/` states the structure its simplified
//! core IR must have, as node counts per kind (the statement kinds of
//! `--emit core`): `-- nodes: map=1 mul=2` for the default options and
//! `-- nodes fast-math: ...` under `--fast-math`, and `-- top: ...` for the
//! statements at the top level of the entry points only. Every program is also run
//! on the interpreter before and after simplification, on the inputs of its
//! test block and on random inputs: the results (or the error) must be the
//! same, bit for bit without fast-math and within the test tolerance with it.

use arrc::core::ir::{Program, Type};
use arrc::interp::run_entry;
use arrc::runtime::value::{compare, read_values, write_text, ArrayData, ArrayValue, Value};
use arrc::simplify::walk::{node_counts, node_kind};
use arrc::simplify::SimplifyOptions;
use arrc::types::{Const, ScalarType};
use std::path::{Path, PathBuf};

/// The simplifier's passes in rounds, as the pass list runs them.
fn simplify_with(p: Program, options: &SimplifyOptions) -> Program {
    arrc::driver::pipeline::simplify(p, options).unwrap_or_else(|e| panic!("{}", e.render()))
}

fn frontend(path: &Path) -> Result<Program, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let mut sources = arrc::syntax::SourceMap::default();
    let file = sources.add(path.display().to_string(), text);
    let prog = arrc::syntax::parse_program(&sources, file).map_err(|d| format!("{d:?}"))?;
    let checked = arrc::types::check(&sources, &[prog]).map_err(|d| format!("{d:?}"))?;
    Ok(arrc::core::lower(&checked, &sources))
}

fn programs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/simplify");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "arr"))
        .collect();
    files.sort();
    files
}

fn options(fast_math: bool) -> SimplifyOptions {
    SimplifyOptions {
        fast_math,
        ..SimplifyOptions::default()
    }
}

/// `kind=count` pairs after `-- nodes:` (or `-- nodes fast-math:`).
fn expected_counts(source: &str, fast_math: bool) -> Option<Vec<(String, usize)>> {
    let prefix = if fast_math {
        "-- nodes fast-math:"
    } else {
        "-- nodes:"
    };
    let line = source.lines().find(|l| l.starts_with(prefix))?;
    Some(pairs(&line[prefix.len()..]))
}

fn pairs(text: &str) -> Vec<(String, usize)> {
    text.split_whitespace()
        .map(|pair| {
            let (k, v) = pair.split_once('=').expect("kind=count");
            (k.to_string(), v.parse().expect("a count"))
        })
        .collect()
}

/// Statement kinds at the top level of the entry points (not nested in a
/// branch, lambda or loop): where hoisting and sinking put things.
fn top_counts(p: &Program) -> std::collections::BTreeMap<&'static str, usize> {
    let mut out = std::collections::BTreeMap::new();
    for f in &p.entries {
        for stm in &f.body.stms {
            *out.entry(node_kind(&stm.exp)).or_insert(0) += 1;
        }
    }
    out
}

/// The text between the braces of every `input { ... }` of the test block.
fn block_inputs(source: &str) -> Vec<String> {
    let block: String = source
        .lines()
        .filter_map(|l| l.strip_prefix("--"))
        .collect::<Vec<_>>()
        .join(" ");
    let mut inputs = Vec::new();
    let mut rest = block.as_str();
    while let Some(at) = rest.find("input {") {
        let after = &rest[at + "input {".len()..];
        let Some(end) = after.find('}') else { break };
        inputs.push(after[..end].to_string());
        rest = &after[end..];
    }
    inputs
}

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn scalar(&mut self, t: ScalarType) -> Const {
        let r = self.next();
        // Small integers most of the time, so indices are sometimes in range.
        let int = if r.is_multiple_of(4) {
            (r >> 8) as i128
        } else {
            (r >> 8) as i128 % 9 - 3
        };
        match t {
            ScalarType::F32 => {
                Const::F32(((r >> 11) as f64 / (1u64 << 53) as f64) as f32 * 4.0 - 2.0)
            }
            ScalarType::F64 => Const::F64((r >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0),
            ScalarType::Bool => Const::Bool(r & 1 == 1),
            t => Const::int_wrapping(t, int),
        }
    }

    fn value(&mut self, ty: Type, n: usize) -> Value {
        match ty {
            Type::Scalar(t) => Value::Scalar(self.scalar(t)),
            Type::Array(t, rank) => {
                let shape = vec![n; rank];
                let mut data = ArrayData::with_capacity(t, n.pow(rank as u32));
                for _ in 0..n.pow(rank as u32) {
                    data.push(self.scalar(t));
                }
                Value::Array(ArrayValue::new(shape, data).expect("shape fits data"))
            }
        }
    }
}

fn outcome(p: &Program, entry: &str, args: &[Value]) -> Result<Vec<Value>, String> {
    run_entry(p, entry, args.to_vec()).map_err(|e| e.to_string())
}

/// Same results bit for bit (`exact`) or within the test tolerance.
fn same_outcome(
    want: &Result<Vec<Value>, String>,
    got: &Result<Vec<Value>, String>,
    exact: bool,
) -> Result<(), String> {
    match (want, got) {
        (Err(a), Err(b)) if a == b => Ok(()),
        (Ok(a), Ok(b)) if a.len() == b.len() => {
            for (x, y) in a.iter().zip(b) {
                if exact {
                    if write_text(x) != write_text(y) {
                        return Err(format!("{} became {}", write_text(x), write_text(y)));
                    }
                } else {
                    compare(y, x)?;
                }
            }
            Ok(())
        }
        _ => Err(format!("{want:?} became {got:?}")),
    }
}

fn check_program(path: &Path) -> Result<(), String> {
    let source = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let original = frontend(path)?;
    let plain = simplify_with(original.clone(), &options(false));
    let fast = simplify_with(original.clone(), &options(true));
    for (fast_math, simplified) in [(false, &plain), (true, &fast)] {
        if let Some(expected) = expected_counts(&source, fast_math) {
            let counts = node_counts(simplified);
            for (kind, n) in expected {
                let got = counts.get(kind.as_str()).copied().unwrap_or(0);
                if got != n {
                    return Err(format!(
                        "{kind}: expected {n}, found {got} (fast-math {fast_math}) in\n{}",
                        arrc::core::print::print_program(simplified)
                    ));
                }
            }
        }
    }
    if let Some(line) = source.lines().find(|l| l.starts_with("-- top:")) {
        let counts = top_counts(&plain);
        for (kind, n) in pairs(&line["-- top:".len()..]) {
            let got = counts.get(kind.as_str()).copied().unwrap_or(0);
            if got != n {
                return Err(format!(
                    "top-level {kind}: expected {n}, found {got} in\n{}",
                    arrc::core::print::print_program(&plain)
                ));
            }
        }
    }
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for f in &original.entries {
        let types: Vec<Type> = f.params.iter().map(|p| p.ty).collect();
        let mut cases: Vec<Vec<Value>> = Vec::new();
        if f.name == "main" {
            for text in block_inputs(&source) {
                let args = read_values(text.as_bytes(), &types)
                    .map_err(|e| format!("input {{{text}}}: {e:?}"))?;
                cases.push(args);
            }
        }
        for round in 0..40 {
            let n = round % 7;
            cases.push(types.iter().map(|t| rng.value(*t, n)).collect());
        }
        for args in &cases {
            let want = outcome(&original, &f.name, args);
            let got = outcome(&plain, &f.name, args);
            same_outcome(&want, &got, true)
                .map_err(|e| format!("entry {}: {e} (without fast-math)", f.name))?;
            let got = outcome(&fast, &f.name, args);
            if let (Ok(_), Ok(_)) = (&want, &got) {
                same_outcome(&want, &got, false)
                    .map_err(|e| format!("entry {}: {e} (fast-math)", f.name))?;
            }
        }
    }
    Ok(())
}

#[test]
fn golden_programs_have_their_structure_and_results() {
    let mut failures = Vec::new();
    let files = programs();
    assert!(!files.is_empty());
    for path in files {
        if let Err(e) = check_program(&path) {
            failures.push(format!("{}: {e}", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The simplifier reaches a fixed point: simplifying again changes nothing.
#[test]
fn simplification_is_idempotent() {
    for path in programs() {
        let p = simplify_with(frontend(&path).unwrap(), &options(false));
        let again = simplify_with(p.clone(), &options(false));
        assert_eq!(
            arrc::core::print::print_program(&p),
            arrc::core::print::print_program(&again),
            "{}",
            path.display()
        );
    }
}

#[test]
#[ignore = "prints the simplified core IR of every golden program"]
fn dump() {
    for path in programs() {
        let p = simplify_with(frontend(&path).unwrap(), &options(false));
        println!(
            "==== {}\n{}",
            path.display(),
            arrc::core::print::print_program(&p)
        );
    }
}

/// Every golden program (with the standard library and its imports) gives the
/// same interpreter results simplified and unsimplified, bit for bit, on the
/// textual inputs of its test blocks and on small random inputs.
#[test]
fn every_golden_program_keeps_its_results() {
    // The front end recurses once per `let` of a chain, and a debug build's
    // frames are big: tests/fusion/many_soacs.arr needs more than the 2 MiB
    // of a test thread (arrc itself runs on a bigger stack).
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(check_every_golden_program)
        .unwrap()
        .join()
        .unwrap();
}

fn check_every_golden_program() {
    use arrc::driver::testblock::{parse_blocks, Input};
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["tests/programs", "tests/stdlib", "tests/fusion", "examples"] {
        let mut found: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "arr"))
            .collect();
        found.sort();
        files.extend(found);
    }
    let mut failures = Vec::new();
    let mut checked = 0;
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for path in files {
        let source = std::fs::read_to_string(&path).unwrap();
        let Ok(blocks) = parse_blocks(&source) else {
            continue;
        };
        let Ok(original) = arrc::driver::pipeline::lowered(&path) else {
            continue;
        };
        let plain = simplify_with(original.clone(), &options(false));
        for f in &original.entries {
            let types: Vec<Type> = f.params.iter().map(|p| p.ty).collect();
            let mut cases: Vec<Vec<Value>> = Vec::new();
            let blocks_cases = blocks.iter().flat_map(|b| &b.cases);
            for case in blocks_cases.filter(|c| c.entries.contains(&f.name)) {
                if let Input::Text(text) = &case.input {
                    if let Ok(args) = read_values(text.as_bytes(), &types) {
                        cases.push(args);
                    }
                }
            }
            // Random integers as sizes or loop bounds could ask for any
            // amount of work: random inputs only where no scalar is an
            // integer, and no integer array reaches an entry with a
            // sequential loop (an element may bound it: one in four random
            // integers is huge).
            let mut alone = original.clone();
            alone.entries.retain(|e| e.name == f.name);
            let has_loop = node_counts(&alone).contains_key("loop");
            let random_ok = types.iter().all(|t| {
                let int = t.elem().is_int();
                if t.rank() == 0 {
                    !int
                } else {
                    !(int && has_loop)
                }
            });
            for round in 0..8 {
                if random_ok {
                    cases.push(types.iter().map(|t| rng.value(*t, round % 5)).collect());
                }
            }
            for args in &cases {
                checked += 1;
                let want = outcome(&original, &f.name, args);
                let got = outcome(&plain, &f.name, args);
                if let Err(e) = same_outcome(&want, &got, true) {
                    failures.push(format!("{} entry {}: {e}", path.display(), f.name));
                }
            }
        }
    }
    assert!(checked > 500, "only {checked} runs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
