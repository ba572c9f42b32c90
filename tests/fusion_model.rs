//! The fusion stage's decisions: the thesis's Figure 12 by the traffic model,
//! structure goldens of `--emit fusion` for every program in tests/fusion/
//! (`UPDATE_GOLDEN=1` rewrites them), and equal results under every strategy.

use std::path::PathBuf;
use std::process::Command;

fn arrc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_arrc"))
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn emit_fusion(program: &str, strategy: &str) -> String {
    let out = arrc()
        .current_dir(root())
        .args(["build", "--emit", "fusion", "--fusion", strategy, program])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{program} --fusion {strategy}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The `loops`, `reads` and `writes` lines of the report's (only) entry.
fn totals(report: &str) -> (String, String, String) {
    let field = |name: &str| {
        report
            .lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .unwrap_or_else(|| panic!("no `{name}` line in\n{report}"))
            .trim()
            .to_string()
    };
    (field("loops:"), field("reads:"), field("writes:"))
}

#[test]
fn figure_12_normalise2() {
    let expect = [
        ("none", "5", "5*n_xs + 2", "3*n_xs + 2"),
        ("greedy", "4", "4*n_xs + 2", "2*n_xs + 2"),
        ("ilp", "2", "2*n_xs + 2", "2*n_xs + 2"),
    ];
    for (strategy, loops, reads, writes) in expect {
        let got = totals(&emit_fusion("examples/normalise2.arr", strategy));
        assert_eq!(
            got,
            (loops.into(), reads.into(), writes.into()),
            "{strategy}"
        );
    }
}

/// The thesis's Figure 12 has `ilp` at 2 loops, `2n + 2` reads and
/// `3n + 2` writes: `xs` is written by the first loop for the second. arrc
/// recomputes the cheap map `xs` in each consumer (`fusion::recompute`), so
/// `greedy` and `ilp` write only the two results.
#[test]
fn figure_12_normalise2_extended() {
    let expect = [
        ("none", "6", "6*n_input + 2", "4*n_input + 2"),
        ("greedy", "4", "4*n_input + 2", "2*n_input + 2"),
        ("ilp", "2", "2*n_input + 2", "2*n_input + 2"),
    ];
    for (strategy, loops, reads, writes) in expect {
        let got = totals(&emit_fusion(
            "tests/fusion/normalise2_extended.arr",
            strategy,
        ));
        assert_eq!(
            got,
            (loops.into(), reads.into(), writes.into()),
            "{strategy}"
        );
    }
    let ilp = emit_fusion("tests/fusion/normalise2_extended.arr", "ilp");
    assert!(
        ilp.contains(
            "cluster 0: Vertical(map#6, Horizontal(reduce#1, Vertical(map#7, Vertical(scan#2, reduce#3))))"
        ),
        "{ilp}"
    );
}

#[test]
fn fusion_structure_goldens() {
    let dir = root().join("tests/fusion");
    let mut programs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "arr"))
        .collect();
    programs.sort();
    assert!(programs.len() >= 20);
    let mut failures = Vec::new();
    for program in programs {
        let rel = program
            .strip_prefix(root())
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        let report = emit_fusion(&rel, "ilp");
        let golden = program.with_extension("fusion");
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&golden, &report).unwrap();
            continue;
        }
        match std::fs::read_to_string(&golden) {
            Ok(want) if want == report => {}
            Ok(want) => failures.push(format!("{rel}:\n--- expected\n{want}--- actual\n{report}")),
            Err(e) => failures.push(format!("{}: {e}", golden.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every golden program gives the same results under every strategy, on
/// 1, 2 and 7 threads with a grain of 1 (so small inputs take the parallel
/// paths too).
#[test]
fn golden_programs_under_every_strategy() {
    for strategy in ["none", "greedy"] {
        let out = arrc()
            .current_dir(root())
            .env("ARRC_GRAIN", "1")
            .args([
                "test",
                "--threads",
                "1,2,7",
                "--fusion",
                strategy,
                "tests/programs",
                "tests/fusion",
                "examples",
            ])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "--fusion {strategy}:\n{stdout}");
    }
}
