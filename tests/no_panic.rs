//! The compiler never panics: every golden program, cut short and mutated in
//! many ways, is either accepted or rejected with exit code 1 and a report,
//! through the whole pipeline to LLVM IR. An internal error is a failure
//! too, however it is reported: exit 70, or a message that calls itself an
//! internal (compiler) error or an unexpected failure.

use std::path::{Path, PathBuf};
use std::process::Command;

fn programs(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries {
        let p = e.unwrap().path();
        if p.is_dir() {
            programs(&p, out);
        } else if p.extension().is_some_and(|e| e == "arr") {
            out.push(p);
        }
    }
}

/// Deterministic mutations: prefixes, deleted characters, duplicated and
/// swapped tokens, and a few characters the language does not have.
fn mutations(text: &str, seed: &mut u64) -> Vec<String> {
    let mut next = || {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    };
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    if chars.is_empty() {
        return out;
    }
    for k in 1..=4 {
        out.push(chars[..chars.len() * k / 5].iter().collect());
    }
    for _ in 0..4 {
        let mut c = chars.clone();
        c.remove(next() as usize % c.len());
        out.push(c.into_iter().collect());
    }
    let words: Vec<&str> = text.split(' ').collect();
    for _ in 0..3 {
        let mut w = words.clone();
        let i = next() as usize % w.len();
        let j = next() as usize % w.len();
        w.swap(i, j);
        out.push(w.join(" "));
        let mut w = words.clone();
        let i = next() as usize % w.len();
        w.insert(i, words[next() as usize % words.len()]);
        out.push(w.join(" "));
    }
    for bad in [
        "@", "`", "$", "[", ")", "\\", "0x", "1e", "'", "..", "\u{3bb}",
    ] {
        let mut c = chars.clone();
        let at = next() as usize % c.len();
        c.splice(at..at, bad.chars());
        out.push(c.into_iter().collect());
    }
    out
}

/// Exit 70 (or any code but 0 and 1), a panic, or a message of an
/// internal error.
fn is_internal_error(code: Option<i32>, stderr: &str) -> bool {
    // A diagnostic quotes the program's lines after a `│` margin; a
    // mutated comment there ("the loopy lint stopped ...") is not the
    // compiler's own words.
    let lower = stderr
        .lines()
        .filter(|line| !line.contains('│'))
        .collect::<Vec<_>>()
        .join("\n")
        .to_lowercase();
    !matches!(code, Some(0) | Some(1))
        || lower.contains("panicked")
        || lower.contains("internal compiler error")
        || lower.contains("internal error")
        || lower.contains("failed unexpectedly")
        || lower.contains("loopy lint")
}

#[test]
fn internal_errors_are_recognised() {
    assert!(is_internal_error(
        Some(70),
        "Error: internal compiler error: x"
    ));
    assert!(is_internal_error(
        Some(1),
        "Error: internal compiler error: x"
    ));
    assert!(is_internal_error(
        Some(1),
        "Error: internal error: unbound variable 3"
    ));
    assert!(is_internal_error(Some(101), "thread 'main' panicked at"));
    assert!(!is_internal_error(
        Some(1),
        "Error: invalid suffix `e` on numeric literal `1e`\n 4 │ 1e-- the loopy lint stopped the build"
    ));
    assert!(!is_internal_error(
        Some(1),
        "Error: unknown name `x` at m.arr:1:2"
    ));
    assert!(!is_internal_error(Some(0), ""));
}

#[test]
fn mutated_programs_never_panic_the_compiler() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["tests/programs", "tests/fusion", "tests/errors", "examples"] {
        programs(&root.join(dir), &mut files);
    }
    files.sort();
    let dir = tempfile::tempdir().unwrap();
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut failures = Vec::new();
    let mut runs = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (k, variant) in mutations(&text, &mut seed).into_iter().enumerate() {
            let path = dir.path().join(format!("m{k}.arr"));
            std::fs::write(&path, &variant).unwrap();
            let out = Command::new(env!("CARGO_BIN_EXE_arrc"))
                .args(["build", "--emit", "llvm"])
                .arg(&path)
                .output()
                .unwrap();
            runs += 1;
            let stderr = String::from_utf8_lossy(&out.stderr);
            let code = out.status.code();
            if is_internal_error(code, &stderr) {
                failures.push(format!(
                    "{} mutation {k} (exit {code:?}):\n{variant}\n{stderr}",
                    file.display()
                ));
            } else if code == Some(1) && stderr.trim().is_empty() {
                failures.push(format!(
                    "{} mutation {k}: exit 1 without a report",
                    file.display()
                ));
            }
        }
    }
    assert!(runs > 500, "only {runs} mutated programs");
    assert!(
        failures.is_empty(),
        "{} of {runs} failed:\n{}",
        failures.len(),
        failures.join("\n---\n")
    );
}
