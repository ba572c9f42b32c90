//! Clustering time of the fusion strategies on generated programs of 10, 100
//! and 1,000 SOACs (`cargo bench --bench fusion`). The programs mix maps,
//! map2s, reductions, scans and maps that use a reduction's result, each
//! reading recent arrays, so the fusion graph has chains, siblings and
//! fusion-preventing edges in realistic proportions; the `mixed` programs add
//! filter families, histograms and scatters. Then windowed solves of bodies
//! a little too large to solve whole are checked against exact solves.

use arrc::fusion::ast::Strategy;
use arrc::fusion::generate::{fusion_graph, program, CLASSIC, MIXED};
use arrc::fusion::{fuse, FusionOptions};
use std::time::Instant;

/// Runs per measurement: the best shows the cost without noise from other
/// processes, the mean what to expect.
const RUNS: usize = 5;

fn main() {
    // `cargo bench --bench fusion -- frontier-speed`: the exact search's
    // speed alone, for comparing builds run by run.
    if std::env::args().any(|a| a == "frontier-speed") {
        frontier_speed();
        return;
    }
    println!(
        "{:>7} {:>6} {:>9} {:>10} {:>10} {:>6} {:>10} {:>28} {:>10}",
        "mix",
        "soacs",
        "strategy",
        "best",
        "mean",
        "loops",
        "traffic",
        "ILP solves/vars/ints/rows/nodes/work",
        "note"
    );
    for (mix, kinds) in [("classic", &CLASSIC[..]), ("mixed", &MIXED[..])] {
        for soacs in [10, 100, 1000] {
            let p = program(soacs, kinds, true, 8, 0x9e3779b97f4a7c15);
            for strategy in [Strategy::Greedy, Strategy::Ilp] {
                // The default node budget, as `arrc build` uses it.
                let options = FusionOptions::new(strategy);
                let mut times = Vec::new();
                let mut fused = None;
                for _ in 0..RUNS {
                    let start = Instant::now();
                    let result = fuse(&p, &options);
                    times.push(start.elapsed().as_secs_f64() * 1e3);
                    fused = Some(result);
                }
                let fused = fused.expect("at least one run");
                let best = times.iter().copied().fold(f64::INFINITY, f64::min);
                let mean = times.iter().sum::<f64>() / times.len() as f64;
                let s = fused.stats;
                println!(
                    "{:>7} {:>6} {:>9} {:>8.1}ms {:>8.1}ms {:>6} {:>8}*n {:>28} {:>10}",
                    mix,
                    soacs,
                    strategy.name(),
                    best,
                    mean,
                    loops_and_traffic(&fused).0,
                    loops_and_traffic(&fused).1,
                    format!(
                        "{}/{}/{}/{}/{}/{}",
                        s.solves, s.variables, s.integers, s.constraints, s.nodes, s.work
                    ),
                    match (strategy, fused.notes.is_empty()) {
                        (Strategy::Ilp, true) => "optimal",
                        (Strategy::Ilp, false) => "not proven",
                        _ => "",
                    }
                );
            }
        }
    }
    windows_against_exact();
    frontier_at_scale();
}

/// Loops and traffic (reads plus writes, in elements of the input's length)
/// of the model for a fused program.
fn loops_and_traffic(fused: &arrc::fusion::Fused) -> (usize, i64) {
    let traffic = arrc::fusion::traffic::function_traffic(&fused.program.entries[0]);
    let n = std::collections::HashMap::from([("n_input".to_string(), 1)]);
    let zero = std::collections::HashMap::new();
    let elements = traffic.reads.eval(&n) + traffic.writes.eval(&n)
        - (traffic.reads.eval(&zero) + traffic.writes.eval(&zero));
    (traffic.loops, elements)
}

/// Bodies over the size solved as one ILP: the default (groups of up to
/// `decompose::PROVE_WHOLE` SOACs solved whole by cycle cuts, larger ones in
/// windows) against whole solves with 100,000 work units (five times the
/// default budget) with cluster numbers (`ilp`) and with cycle cuts (`order`):
/// bytes, milliseconds and whether each proved its answer optimal; then
/// the default's work units, and each whole solve's nanoseconds per LP
/// cell (rows times columns, summed over nodes), what a work unit
/// (`arrc::fusion::CELLS_PER_UNIT` cells) assumes to be about constant.
fn windows_against_exact() {
    use arrc::fusion::{cluster, decompose, greedy, ilp, objective, order};
    println!(
        "\n{:>7} {:>6} {:>26} {:>26} {:>26} {:>26}",
        "mix", "soacs", "default", "cluster numbers", "cycle cuts", "work, ns/cell ilp order"
    );
    for (mix, kinds) in [("classic", &CLASSIC[..]), ("mixed", &MIXED[..])] {
        for soacs in [42, 48, 60] {
            let g = fusion_graph(soacs, kinds, true, 8, 0x9e3779b97f4a7c15);
            let n = g.graph.node_count();
            let start = cluster::separate_conflicts(&g, greedy::decide(&g));
            let show = |fused: &[(usize, usize)], ms: f64, proven: bool| {
                let c = ilp::clusters(n, fused);
                format!("{:.0} {:.0}ms {}", objective::cost(&g, &c), ms, proven)
            };
            let timer = Instant::now();
            let mut budget = decompose::Budget {
                work: arrc::fusion::NODE_LIMIT,
            };
            let default = decompose::decide(&g, &start, &mut budget).unwrap();
            let default_ms = timer.elapsed().as_secs_f64() * 1e3;
            let timer = Instant::now();
            let numbers = ilp::decide(&g, &start, 100_000).unwrap();
            let numbers_ms = timer.elapsed().as_secs_f64() * 1e3;
            let timer = Instant::now();
            let (cuts, used) = order::decide(&g, &start, 100_000).unwrap();
            let cuts_ms = timer.elapsed().as_secs_f64() * 1e3;
            let per_cell = |ms: f64, cells: u64| ms * 1e6 / cells.max(1) as f64;
            let costs = format!(
                "{} {:.1} {:.1}",
                default.stats.work,
                per_cell(numbers_ms, numbers.stats.cells),
                per_cell(cuts_ms, used.cells)
            );
            let cuts = match cuts {
                Some(found) => show(&found.decision.fused, cuts_ms, true),
                None => format!("- {cuts_ms:.0}ms false"),
            };
            println!(
                "{:>7} {:>6} {:>26} {:>26} {:>26} {:>26}",
                mix,
                soacs,
                show(&default.decision.fused, default_ms, default.proven_optimal),
                show(&numbers.decision.fused, numbers_ms, numbers.proven_optimal),
                cuts,
                costs
            );
        }
    }
}

/// The exact dynamic program over program order (`fusion::frontier`, at
/// most 300,000 states at one point), bounded by a beam's clustering
/// (`frontier::beam`, 128 states), on bodies whose SOACs read one of the 2,
/// 3, 4 or 8 latest arrays, against the default path
/// (`decompose::decide`): milliseconds of beam and exact search together
/// (min / median / max of 3 runs), the most states at one point, all
/// states, and bytes moved.
fn frontier_at_scale() {
    use arrc::fusion::{cluster, decompose, frontier, greedy, ilp, objective};
    println!(
        "\n{:>7} {:>6} {:>6} {:>24} {:>8} {:>9} {:>9} {:>24}",
        "mix",
        "soacs",
        "recent",
        "frontier ms",
        "widest",
        "states",
        "bytes",
        "default: ms bytes proven"
    );
    for recent in [2, 3, 4, 8] {
        for (mix, kinds) in [("classic", &CLASSIC[..]), ("mixed", &MIXED[..])] {
            let sizes: &[usize] = if recent == 8 {
                &[30, 100]
            } else {
                &[100, 1000]
            };
            for &soacs in sizes {
                let g = fusion_graph(soacs, kinds, true, recent, 0x9e3779b97f4a7c15);
                let n = g.graph.node_count();
                let mut times = Vec::new();
                let mut found = None;
                for _ in 0..3 {
                    let timer = Instant::now();
                    let upper = frontier::beam(&g, 128).map_or(f64::INFINITY, |b| b.cost);
                    found = frontier::solve(&g, 300_000, u64::MAX, upper);
                    times.push(timer.elapsed().as_secs_f64() * 1e3);
                }
                times.sort_by(f64::total_cmp);
                let start = cluster::separate_conflicts(&g, greedy::decide(&g));
                let timer = Instant::now();
                let mut budget = decompose::Budget {
                    work: arrc::fusion::NODE_LIMIT,
                };
                let default = decompose::decide(&g, &start, &mut budget).unwrap();
                let default_ms = timer.elapsed().as_secs_f64() * 1e3;
                let bytes = objective::cost(&g, &ilp::clusters(n, &default.decision.fused));
                let (widest, states, cost) = match found {
                    Some(f) => (
                        f.widest.to_string(),
                        f.states.to_string(),
                        f.cost.to_string(),
                    ),
                    None => ("gave up".into(), "-".into(), "-".into()),
                };
                println!(
                    "{:>7} {:>6} {:>6} {:>24} {:>8} {:>9} {:>9} {:>24}",
                    mix,
                    soacs,
                    recent,
                    format!("{:.1} / {:.1} / {:.1}", times[0], times[1], times[2]),
                    widest,
                    states,
                    cost,
                    format!("{default_ms:.1} {bytes:.0} {}", default.proven_optimal)
                );
            }
        }
    }
}

/// The exact search (`fusion::frontier::prove`, against a beam of 128
/// states) on the generated bodies of `recent` 8: one line per body with
/// milliseconds (beam and search), the most states at one point, all
/// states, states per second, bytes and the bound at the start, so that
/// two builds can be run alternately at the same load.
fn frontier_speed() {
    use arrc::fusion::frontier;
    for (mix, kinds, soacs) in [
        ("classic", &CLASSIC[..], 100),
        ("mixed", &MIXED[..], 30),
        ("mixed", &MIXED[..], 100),
        ("classic", &CLASSIC[..], 1000),
        ("mixed", &MIXED[..], 1000),
    ] {
        let g = fusion_graph(soacs, kinds, true, 8, 0x9e3779b97f4a7c15);
        let timer = Instant::now();
        let Some(beam) = frontier::beam(&g, 128) else {
            println!("{mix} {soacs}: no beam");
            continue;
        };
        let beam_ms = timer.elapsed().as_secs_f64() * 1e3;
        let found = frontier::prove(&g, 300_000, 20_000_000, &beam.cluster);
        let ms = timer.elapsed().as_secs_f64() * 1e3;
        let root = frontier::root_bound(&g).unwrap_or(f64::NAN);
        match found {
            Some(f) => println!(
                "{mix} {soacs}: {ms:.1} ms (beam {beam_ms:.1}), widest {}, {} states, {:.0} states/s, {} bytes (beam {}), bound at the start {root}",
                f.widest,
                f.states,
                f.states as f64 / ((ms - beam_ms) / 1e3),
                f.cost,
                beam.cost
            ),
            None => println!(
                "{mix} {soacs}: gave up after {ms:.1} ms (beam {beam_ms:.1}, {} bytes), bound at the start {root}",
                beam.cost
            ),
        }
    }
}
