//! Clustering time of the fusion strategies on generated programs of 10, 100
//! and 1,000 SOACs (`cargo bench --bench fusion`). The programs mix maps,
//! map2s, reductions, scans and maps that use a reduction's result, each
//! reading recent arrays, so the fusion graph has chains, siblings and
//! fusion-preventing edges in realistic proportions; the `mixed` programs add
//! filter families, histograms and scatters. Then windowed solves of bodies
//! a little too large to solve whole are checked against exact solves.

use arrc::fusion::ast::Strategy;
use arrc::fusion::generate::{program, Kind, CLASSIC};
use arrc::fusion::{fuse, FusionOptions};
use std::time::Instant;

/// With histograms, scatters and filter families besides.
const MIXED: [Kind; 8] = [
    Kind::Map,
    Kind::Map2,
    Kind::Reduce,
    Kind::Scan,
    Kind::MapUsing,
    Kind::Filter,
    Kind::Hist,
    Kind::Scatter,
];

/// Runs per measurement: the best shows the cost without noise from other
/// processes, the mean what to expect.
const RUNS: usize = 5;

fn main() {
    println!(
        "{:>7} {:>6} {:>9} {:>10} {:>10} {:>6} {:>10} {:>28} {:>10}",
        "mix",
        "soacs",
        "strategy",
        "best",
        "mean",
        "loops",
        "traffic",
        "ILP solves/vars/ints/rows/nodes",
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
                        "{}/{}/{}/{}/{}",
                        s.solves, s.variables, s.integers, s.constraints, s.nodes
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

/// Bodies just over the size solved whole are solved in windows; the
/// objective (bytes) of the windows' clustering against a solve of the whole
/// body with 100,000 nodes (five times the default budget), which says
/// whether it proved its answer optimal.
fn windows_against_exact() {
    use arrc::fusion::{cluster, decompose, graph, greedy, objective};
    println!(
        "\n{:>7} {:>6} {:>14} {:>14} {:>10} {:>10}",
        "mix", "soacs", "windows", "exact", "exact ms", "proven"
    );
    for (mix, kinds) in [("classic", &CLASSIC[..]), ("mixed", &MIXED[..])] {
        for soacs in [42, 48] {
            let p = program(soacs, kinds, true, 8, 0x9e3779b97f4a7c15);
            let f = &p.entries[0];
            let g = graph::build(&f.params, &f.body);
            let n = g.graph.node_count();
            let start = cluster::separate_conflicts(&g, greedy::decide(&g));
            let clusters = |fused: &[(usize, usize)]| {
                let mut sets: Vec<usize> = (0..n).collect();
                fn find(s: &mut [usize], mut x: usize) -> usize {
                    while s[x] != x {
                        x = s[x];
                    }
                    x
                }
                for &(a, b) in fused {
                    let (ra, rb) = (find(&mut sets, a), find(&mut sets, b));
                    sets[ra.max(rb)] = ra.min(rb);
                }
                (0..n).map(|v| find(&mut sets, v)).collect::<Vec<_>>()
            };
            let mut budget = decompose::Budget {
                nodes: arrc::fusion::NODE_LIMIT,
            };
            let windowed = decompose::decide(&g, &start, &mut budget).unwrap();
            let timer = Instant::now();
            let mut big = decompose::Budget { nodes: 100_000 };
            let exact = decompose::decide_with(&g, &start, &mut big, usize::MAX).unwrap();
            let ms = timer.elapsed().as_secs_f64() * 1e3;
            println!(
                "{:>7} {:>6} {:>14.0} {:>14.0} {:>10.0} {:>10}",
                mix,
                soacs,
                objective::cost(&g, &clusters(&windowed.decision.fused)),
                objective::cost(&g, &clusters(&exact.decision.fused)),
                ms,
                exact.proven_optimal
            );
        }
    }
}
