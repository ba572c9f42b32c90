//! The exact dynamic program over program order (`fusion::frontier`)
//! against the enumeration of every legal clustering on small random
//! bodies, and against the ILP's proven optimum on larger ones.

use arrc::fusion::generate::{fusion_graph, Kind, CLASSIC, MIXED};
use arrc::fusion::graph::FusionGraph;
use arrc::fusion::{cluster, exhaustive, frontier, greedy, ilp, objective, order};

const ALL: [Kind; 9] = [
    Kind::Map,
    Kind::Map2,
    Kind::Reduce,
    Kind::Scan,
    Kind::ScanRight,
    Kind::MapUsing,
    Kind::Filter,
    Kind::Hist,
    Kind::Scatter,
];

/// The dynamic program's clustering is legal, costs what it says, and
/// costs `best`.
fn check(graph: &FusionGraph, best: f64, what: &str) {
    let found = frontier::solve(graph, 1_000_000, u64::MAX, f64::INFINITY)
        .unwrap_or_else(|| panic!("{what}: no answer"));
    assert!(
        objective::legal(graph, &found.cluster),
        "{what}: illegal {:?}",
        found.cluster
    );
    let cost = objective::cost(graph, &found.cluster);
    assert_eq!(cost, found.cost, "{what}: cost as claimed");
    assert!(
        (cost - best).abs() <= 1e-9 * best.max(1.0),
        "{what}: dynamic program {cost}, optimum {best}"
    );
}

#[test]
fn frontier_equals_enumerated_minimum() {
    let mut bodies = 0;
    for seed in 1..=400u64 {
        let n = 4 + (seed % 7) as usize;
        let recent = 2 + (seed % 4) as usize;
        let kinds: &[Kind] = if seed % 3 == 0 { &CLASSIC } else { &ALL };
        let graph = fusion_graph(n, kinds, false, recent, seed * 7919);
        if graph.soac_count() > 10 {
            continue;
        }
        let best = exhaustive::minimum(&graph);
        check(&graph, best.cost, &format!("seed {seed}"));
        // The bound on what is still to come is admissible: with the
        // optimum itself as the incumbent, the optimum survives.
        let tight = frontier::solve(&graph, 1_000_000, u64::MAX, best.cost)
            .unwrap_or_else(|| panic!("seed {seed}: optimum pruned"));
        assert_eq!(tight.cost, best.cost, "seed {seed}: bounded by the optimum");
        // Proving against a legal clustering ends at the optimum: the
        // enumerated one is proven (no state can beat it), greedy's is
        // beaten where it is not optimal, and the state-dependent part of
        // the bound prunes no completion that beats either.
        for (incumbent, what) in [
            (best.cluster.clone(), "optimum"),
            (
                ilp::clusters(
                    graph.graph.node_count(),
                    &cluster::separate_conflicts(&graph, greedy::decide(&graph)).fused,
                ),
                "greedy",
            ),
        ] {
            if !objective::legal(&graph, &incumbent) {
                continue;
            }
            let proven = frontier::prove(&graph, 1_000_000, u64::MAX, &incumbent)
                .unwrap_or_else(|| panic!("seed {seed}: no proof against {what}"));
            assert!(
                objective::legal(&graph, &proven.cluster),
                "seed {seed}: {what}"
            );
            assert_eq!(objective::cost(&graph, &proven.cluster), proven.cost);
            assert_eq!(proven.cost, best.cost, "seed {seed}: proven against {what}");
        }
        let beam = frontier::beam(&graph, 2).unwrap();
        assert!(objective::legal(&graph, &beam.cluster), "seed {seed}: beam");
        assert_eq!(objective::cost(&graph, &beam.cluster), beam.cost);
        assert!(
            beam.cost >= best.cost,
            "seed {seed}: beam below the optimum"
        );
        bodies += 1;
    }
    assert!(bodies >= 330, "{bodies} bodies checked");
}

/// Beyond the enumeration: the cycle-cut ILP's proven optimum on bodies of
/// 11 to 40 SOACs, and the upper bound of greedy's clustering loses nothing.
#[test]
fn frontier_equals_ilp_optimum() {
    let mut compared = 0;
    for seed in 1..=40u64 {
        let n = 11 + (seed % 30) as usize;
        let recent = 2 + (seed % 6) as usize;
        let graph = fusion_graph(n, &ALL, false, recent, seed * 6_700_417);
        let start = cluster::separate_conflicts(&graph, greedy::decide(&graph));
        let (cut, _) = order::decide(&graph, &start, 200_000).unwrap();
        let Some(cut) = cut else { continue };
        let cl = ilp::clusters(graph.graph.node_count(), &cut.decision.fused);
        let best = objective::cost(&graph, &cl);
        check(&graph, best, &format!("seed {seed}"));
        let upper = objective::cost(
            &graph,
            &ilp::clusters(graph.graph.node_count(), &start.fused),
        );
        let bounded = frontier::solve(&graph, 1_000_000, u64::MAX, upper).unwrap();
        assert_eq!(bounded.cost, best, "seed {seed}: bounded by greedy");
        compared += 1;
    }
    assert!(compared >= 35, "{compared} bodies compared");
}

/// Bodies like those of `benches/fusion.rs` (each SOAC reads one of the 8
/// latest arrays; sizes cheap in a debug build), proven by branch and
/// bound from a beam's clustering, at the cycle-cut ILP's proven optimum.
#[test]
fn frontier_proves_benchmark_bodies() {
    for (kinds, soacs) in [(&CLASSIC[..], 30), (&MIXED[..], 22)] {
        let graph = fusion_graph(soacs, kinds, true, 8, 0x9e3779b97f4a7c15);
        let start = cluster::separate_conflicts(&graph, greedy::decide(&graph));
        let (cut, _) = order::decide(&graph, &start, 200_000).unwrap();
        let cut = cut.expect("the cycle-cut ILP proves it");
        let cl = ilp::clusters(graph.graph.node_count(), &cut.decision.fused);
        let optimum = objective::cost(&graph, &cl);
        let beam = frontier::beam(&graph, 128).unwrap();
        assert!(objective::legal(&graph, &beam.cluster));
        assert_eq!(objective::cost(&graph, &beam.cluster), beam.cost);
        let found = frontier::solve(&graph, 10_000, 100_000, beam.cost)
            .unwrap_or_else(|| panic!("{soacs} SOACs: no answer"));
        assert!(objective::legal(&graph, &found.cluster));
        assert_eq!(objective::cost(&graph, &found.cluster), found.cost);
        assert_eq!(found.cost, optimum, "{soacs} SOACs");
    }
}
