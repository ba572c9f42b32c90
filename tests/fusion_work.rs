//! The ILP clusterer's work stays bounded on a body whose LPs are large,
//! measured by the work `--fusion-stats` reports rather than by a clock.
//!
//! `tests/programs/ilp_slow_unrolled.arr` at -O0 puts 46 SOACs into one
//! body. When the budget counted branch-and-bound nodes alone, its cycle-cut
//! ILP (about 265,000 rows times columns) and then its windows spent 20,000
//! nodes, up to 5 billion LP cells, 19 s of CPU; a node costs 5 to 12 ns a
//! cell (docs/fusion.md, "Work, not nodes").

use std::process::Command;

/// The numbers of `--fusion-stats`'s line, by name.
fn stats(program: &str, extra: &[&str]) -> Vec<(String, u64)> {
    let out = Command::new(env!("CARGO_BIN_EXE_arrc"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["build", "--emit", "fusion", "--fusion-stats", program])
        .args(extra)
        .output()
        .expect("run arrc");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{program}: {stderr}");
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix("fusion stats: "))
        .unwrap_or_else(|| panic!("no stats line in: {stderr}"));
    // "work 15487 of 20000": the words before the first number name it.
    line.split(", ")
        .map(|field| {
            let words: Vec<&str> = field.split(' ').collect();
            let at = words
                .iter()
                .position(|w| w.parse::<u64>().is_ok())
                .unwrap_or_else(|| panic!("no number in {field}"));
            (words[..at].join(" "), words[at].parse().unwrap())
        })
        .collect()
}

fn field(stats: &[(String, u64)], name: &str) -> u64 {
    stats
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no {name} in {stats:?}"))
        .1
}

/// The default budget keeps a body's LP work to what about a second pays
/// for (100 million cells), and its work within the limit.
fn work_is_bounded(program: &str) {
    let s = stats(program, &["-O0"]);
    let cells = field(&s, "lp cells");
    assert!(cells <= 100_000_000, "{cells} LP cells: {s:?}");
    assert!(field(&s, "work") <= arrc::fusion::NODE_LIMIT, "{s:?}");
    // Since `frontier::prove` and the state-dependent bound both bodies
    // are proven by the frontier before any ILP runs (15,448 and 5,517
    // states); the limits above still hold when the ILP does run.
    assert!(
        field(&s, "nodes") > 0 || field(&s, "frontier states") > 0,
        "a solver ran: {s:?}"
    );
    // A frontier state costs microseconds; its limits bound them.
    assert!(field(&s, "frontier states") <= 200_000, "{s:?}");
    // Work, not time: the same program reports the same work.
    assert_eq!(s, stats(program, &["-O0"]));
}

#[test]
fn unrolled_body_work_is_bounded() {
    work_is_bounded("tests/programs/ilp_slow_unrolled.arr");
}

/// A body of 170 statements solved in windows of 16 SOACs, which took 41 s
/// of CPU when nodes were counted alone.
#[test]
fn windowed_body_work_is_bounded() {
    work_is_bounded("tests/programs/ilp_slow_windows.arr");
}

/// A smaller limit is obeyed too, counted in the same units.
#[test]
fn work_limit_is_obeyed() {
    let program = "tests/programs/ilp_slow_unrolled.arr";
    let s = stats(program, &["-O0", "--fusion-node-limit", "500"]);
    assert!(field(&s, "work") <= 500, "{s:?}");
    assert!(
        field(&s, "lp cells") <= 500 * arrc::fusion::CELLS_PER_UNIT,
        "{s:?}"
    );
}

/// Weighting nodes by their LP's size leaves enough work to prove the
/// benchmark's mixed bodies of 42 and 48 SOACs (`recent` 8) optimal by
/// cycle cuts, as counting nodes did, with the default budget.
#[test]
fn default_budget_proves_mid_sized_bodies() {
    use arrc::fusion::generate::{fusion_graph, MIXED};
    use arrc::fusion::{cluster, decompose, greedy};
    for soacs in [42, 48] {
        let graph = fusion_graph(soacs, &MIXED, true, 8, 0x9e3779b97f4a7c15);
        let start = cluster::separate_conflicts(&graph, greedy::decide(&graph));
        let mut budget = decompose::Budget {
            work: arrc::fusion::NODE_LIMIT,
        };
        let found = decompose::decide(&graph, &start, &mut budget).unwrap();
        assert!(
            found.proven_optimal,
            "mixed {soacs}: {:?} of {} work units",
            found.stats,
            arrc::fusion::NODE_LIMIT
        );
    }
}
