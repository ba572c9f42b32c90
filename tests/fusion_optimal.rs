//! "Optimal" is true: on hundreds of generated bodies of up to 10 SOACs of
//! every kind (maps, reductions, scans, maps using reductions, filter
//! families, histograms, scatters), the ILP's clustering is legal, proven
//! optimal, and moves exactly as many bytes as the best of all legal
//! clusterings found by enumerating them (`fusion::exhaustive`); the same
//! program always fuses the same way.

use arrc::fusion::ast::Strategy;
use arrc::fusion::generate::{fusion_graph, program, Kind, MIXED as ALL};
use arrc::fusion::graph::FusionGraph;
use arrc::fusion::{
    cluster, decompose, exhaustive, fuse, greedy, ilp, objective, order, FusionOptions,
};

fn clusters(n: usize, fused: &[(usize, usize)]) -> Vec<usize> {
    let mut root: Vec<usize> = (0..n).collect();
    fn find(root: &mut [usize], mut x: usize) -> usize {
        while root[x] != x {
            x = root[x];
        }
        x
    }
    for &(a, b) in fused {
        let (ra, rb) = (find(&mut root, a), find(&mut root, b));
        root[ra.max(rb)] = ra.min(rb);
    }
    (0..n).map(|v| find(&mut root, v)).collect()
}

/// The ILP against the enumeration on one graph; returns the number of
/// legal clusterings.
fn check(graph: &FusionGraph, what: &str) -> usize {
    let n = graph.graph.node_count();
    let start = cluster::separate_conflicts(graph, greedy::decide(graph));
    let greedy_cost = objective::cost(graph, &clusters(n, &start.fused));
    assert!(
        objective::legal(graph, &clusters(n, &start.fused)),
        "{what}: greedy is legal"
    );
    let found = ilp::decide(graph, &start, u64::MAX).unwrap();
    assert!(found.proven_optimal, "{what}: not proven");
    let chosen = clusters(n, &found.decision.fused);
    assert!(
        objective::legal(graph, &chosen),
        "{what}: the ILP's clustering is legal"
    );
    let ilp_cost = objective::cost(graph, &chosen);
    let best = exhaustive::minimum(graph);
    assert!(
        (ilp_cost - best.cost).abs() <= 1e-9 * best.cost.max(1.0),
        "{what}: ILP {ilp_cost} bytes, best of {} legal clusterings {} ({:?})",
        best.legal,
        best.cost,
        best.cluster
    );
    assert!(ilp_cost <= greedy_cost + 1e-9, "{what}: worse than greedy");
    // So does the model without cluster numbers, cutting cycles as it meets
    // them (`fusion::order`).
    let (cut, _) = order::decide(graph, &start, u64::MAX).unwrap();
    let cut = cut.unwrap_or_else(|| panic!("{what}: cycle cuts not proven"));
    let cut_clusters = clusters(n, &cut.decision.fused);
    assert!(
        objective::legal(graph, &cut_clusters),
        "{what}: cycle cuts' clustering is legal"
    );
    let cut_cost = objective::cost(graph, &cut_clusters);
    assert!(
        (cut_cost - best.cost).abs() <= 1e-9 * best.cost.max(1.0),
        "{what}: cycle cuts {cut_cost}"
    );
    // Splitting into independent groups loses nothing either.
    let mut budget = decompose::Budget { work: u64::MAX };
    let split = decompose::decide_with(graph, &start, &mut budget, 0).unwrap();
    let split_cost = objective::cost(graph, &clusters(n, &split.decision.fused));
    assert!(split.proven_optimal, "{what}: groups not proven");
    assert!(
        (split_cost - best.cost).abs() <= 1e-9 * best.cost.max(1.0),
        "{what}: groups {split_cost}"
    );
    best.legal
}

#[test]
fn ilp_equals_enumerated_minimum() {
    let mut bodies = 0;
    let mut clusterings = 0;
    for seed in 1..=300u64 {
        // 4 to 10 SOACs, reading from the 2 to 5 latest arrays.
        let soacs = 4 + (seed % 7) as usize;
        let recent = 2 + (seed % 4) as usize;
        let graph = fusion_graph(soacs, &ALL, false, recent, seed * 7919);
        let count = graph.soac_count();
        if count > 10 {
            continue;
        }
        clusterings += check(&graph, &format!("seed {seed} ({count} SOACs)"));
        bodies += 1;
    }
    assert!(bodies >= 250, "{bodies} bodies checked");
    assert!(clusterings > bodies * 5, "the bodies have choices");
}

/// Both directions: `scanr` fuses with maps and reductions but never with
/// a `scan`, and the ILP still reaches the enumerated minimum.
#[test]
fn ilp_equals_enumerated_minimum_in_both_directions() {
    let kinds = [
        Kind::Map,
        Kind::Map2,
        Kind::Reduce,
        Kind::Scan,
        Kind::ScanRight,
        Kind::MapUsing,
    ];
    let mut bodies = 0;
    let mut both = 0;
    for seed in 1..=120u64 {
        let soacs = 4 + (seed % 7) as usize;
        let recent = 2 + (seed % 4) as usize;
        let graph = fusion_graph(soacs, &kinds, false, recent, seed * 104_729);
        let directions: std::collections::BTreeSet<_> = graph
            .graph
            .node_indices()
            .filter_map(|v| graph.graph[v].soac.as_ref()?.direction())
            .collect();
        if directions.len() == 2 {
            both += 1;
        }
        check(&graph, &format!("seed {seed}"));
        bodies += 1;
    }
    assert!(both >= 30, "{both} bodies mix both directions");
    assert_eq!(bodies, 120);
}

/// Maps that read one vector from outside whole, through their inner
/// SOACs (`Kind::RowDot`), are siblings by it: the ILP, the cycle cuts and
/// the groups still reach the enumerated minimum with that term.
#[test]
fn ilp_equals_enumerated_minimum_with_shared_free_rows() {
    let kinds = [
        Kind::Map,
        Kind::Map2,
        Kind::Reduce,
        Kind::Scan,
        Kind::MapUsing,
        Kind::RowDot,
        Kind::RowDot,
    ];
    let (mut bodies, mut paired) = (0, 0);
    for seed in 1..=120u64 {
        let soacs = 4 + (seed % 7) as usize;
        let recent = 2 + (seed % 4) as usize;
        let p = program(soacs, &kinds, false, recent, seed * 15_485_863);
        let f = &p.entries[0];
        let w = f.params[1].id;
        let graph = arrc::fusion::graph::build(&f.params, &f.body);
        let count = graph.soac_count();
        if count > 10 {
            continue;
        }
        if graph.siblings.iter().any(|s| s.shared.contains(&w)) {
            assert!(
                graph.arrays.contains_key(&w),
                "seed {seed}: the vector is a term"
            );
            paired += 1;
        }
        check(&graph, &format!("seed {seed} ({count} SOACs)"));
        bodies += 1;
    }
    assert!(bodies >= 100, "{bodies} bodies checked");
    assert!(paired >= 40, "{paired} bodies pair maps by the vector");
}

/// The same program always fuses the same way (the solver has a node
/// budget, not a clock), also when the budget stops it early.
#[test]
fn same_program_same_fusion() {
    for (soacs, limit) in [(30, arrc::fusion::NODE_LIMIT), (60, 50)] {
        let p = program(soacs, &ALL, true, 6, 42);
        let mut options = FusionOptions::new(Strategy::Ilp);
        options.node_limit = limit;
        let a = fuse(&p, &options);
        let b = fuse(&p, &options);
        assert_eq!(a.program, b.program);
        assert_eq!(a.stats, b.stats);
    }
}

/// Beyond what the enumeration reaches (11 to 30 SOACs of every kind): the
/// model without cluster numbers (`fusion::order`) and the one with them
/// prove the same optimum, and the cuts' clustering is legal.
#[test]
fn cycle_cuts_equal_cluster_numbers() {
    let mut compared = 0;
    for seed in 1..=40u64 {
        let soacs = 11 + (seed % 20) as usize;
        let recent = 2 + (seed % 6) as usize;
        let graph = fusion_graph(soacs, &ALL, false, recent, seed * 6_700_417);
        let n = graph.graph.node_count();
        let start = cluster::separate_conflicts(&graph, greedy::decide(&graph));
        let numbers = ilp::decide(&graph, &start, 200_000).unwrap();
        let (cut, _) = order::decide(&graph, &start, 200_000).unwrap();
        let Some(cut) = cut.filter(|_| numbers.proven_optimal) else {
            continue;
        };
        let (a, b) = (
            clusters(n, &numbers.decision.fused),
            clusters(n, &cut.decision.fused),
        );
        assert!(objective::legal(&graph, &b), "seed {seed}: legal");
        let (ca, cb) = (objective::cost(&graph, &a), objective::cost(&graph, &b));
        assert!(
            (ca - cb).abs() <= 1e-9 * ca.max(1.0),
            "seed {seed}: cluster numbers {ca}, cycle cuts {cb}"
        );
        compared += 1;
    }
    assert!(compared >= 35, "{compared} bodies proven both ways");
}
