//! The ILP of `ilp` without cluster numbers: the pair variables, traits,
//! traffic and cuts go in (`ilp::build` with `order` off), an optimal legal
//! clustering comes out, with cycles excluded by rows added as they are met
//! (a cutting-plane loop) instead of by big-M rows over cluster numbers.
//!
//! Each round solves the model; if its clustering (the components of the
//! fused pairs) has an ordering edge inside a cluster or a cycle of
//! clusters, a row that this clustering violates and no legal one does is
//! added for each, and the model is solved again. An ordering edge is a
//! program edge that is not fused: a preventing edge, a fusible edge that
//! can never fuse, a candidate edge with `x = 1`, or a family member's
//! width use when the family is not fused. For a closed walk
//! `C1 -e1-> C2 -> ... -ek-> C1` through clusters, with `P_i` the fused
//! pairs of a path inside `C_i` from where `e_{i-1}` enters to where `e_i`
//! leaves, the row is
//!
//! `sum over P_i of x  +  sum over conditional e_i of (1 - cond(e_i))  >= 1`
//!
//! where `cond(e)` is the variable whose value 1 makes `e` an ordering
//! edge (`x_e` for a candidate edge, the family's for a width use). A
//! legal clustering that fused every `P_i` and had every `e_i` ordering
//! would put each `e_i` between two different clusters (a candidate edge
//! with `x = 1` never lies inside one: the row for `k = 1` says so, and
//! cluster numbers said it too), a closed walk without loops, so a cycle.
//! So the rows keep every legal clustering, and the last round's optimum,
//! being legal, is the optimum of the model with cluster numbers.
//!
//! Rows are found as shortest closed walks (a pair costs its `x`, an edge
//! `1 - cond`), so fractional values are cut too: before branching, the
//! linear relaxation is solved and cut until no walk costs less than 1
//! (at most `ROOT_ROUNDS` times). The model has no big-M rows; the rounds
//! stop on the node budget, like every solve, and then prove nothing
//! (`decompose` falls back to windows).

use super::cluster::Decision;
use super::graph::FusionGraph;
use super::ilp::{self, IlpDecision, IlpFailure, SolveStats};
use super::solver::{self, Cmp, Row};
use petgraph::visit::EdgeRef;
use std::collections::{BTreeMap, BTreeSet};

/// An ordering edge between statements, and the variable (if any) whose
/// value 1 makes it one.
#[derive(Clone, Copy)]
struct Arc {
    from: usize,
    to: usize,
    cond: Option<usize>,
}

/// Rounds of cutting the linear relaxation before branching.
const ROOT_ROUNDS: usize = 200;

/// The optimal clustering, or `None` when the budget ran out before a
/// round's optimum was legal (nothing proven then; the caller falls back).
pub fn decide(
    graph: &FusionGraph,
    start: &Decision,
    work: u64,
) -> Result<(Option<IlpDecision>, SolveStats), IlpFailure> {
    let n = graph.graph.node_count();
    let s = ilp::structure(graph);
    let mut built = ilp::build(graph, &s, start, false);
    let mut stats = SolveStats::default();
    let mut left = work;
    let mut seen: BTreeSet<Vec<(usize, i64)>> = BTreeSet::new();
    let mut add = |lp: &mut solver::Lp, rows: Vec<Row>| {
        let mut added = false;
        for row in rows {
            let key: Vec<(usize, i64)> = row
                .terms
                .iter()
                .map(|&(v, k)| (v, k as i64))
                .chain([(usize::MAX, row.rhs as i64)])
                .collect();
            if seen.insert(key) {
                lp.rows.push(row);
                added = true;
            }
        }
        added
    };
    // Cut the relaxation first: its fractional cycles are where the bound
    // is weak.
    let mut relaxed = solver::Lp {
        columns: built
            .lp
            .columns
            .iter()
            .map(|c| solver::Column {
                integer: false,
                ..*c
            })
            .collect(),
        rows: std::mem::take(&mut built.lp.rows),
        start: built.lp.start.clone(),
    };
    for _ in 0..ROOT_ROUNDS {
        // Each round is charged like a node: a large body's hundreds of
        // rounds would otherwise cost seconds outside the budget.
        let outcome = solver::solve(&relaxed, left).map_err(IlpFailure::Solver)?;
        stats.solves += 1;
        stats.work += outcome.work;
        stats.cells += outcome.cells;
        left = left.saturating_sub(outcome.work);
        let Some(values) = outcome.values else { break };
        let rows = violated(graph, &built, &values);
        if !add(&mut relaxed, rows) {
            break;
        }
    }
    built.lp.rows = relaxed.rows;
    loop {
        let outcome = solver::solve(&built.lp, left).map_err(IlpFailure::Solver)?;
        stats.add(&SolveStats {
            solves: 1,
            variables: built.lp.columns.len(),
            integers: built.integers,
            constraints: built.lp.rows.len(),
            nodes: outcome.nodes,
            work: outcome.work,
            cells: outcome.cells,
            states: 0,
        });
        left = left.saturating_sub(outcome.work.max(1));
        let Some(values) = outcome.values.filter(|_| outcome.proven_optimal) else {
            return Ok((None, stats));
        };
        let rows = violated(graph, &built, &values);
        if rows.is_empty() {
            let fused: Vec<(usize, usize)> = built
                .x
                .iter()
                .filter(|(_, &xv)| values[xv] < 0.5)
                .map(|(&pair, _)| pair)
                .collect();
            let level = ilp::cluster_numbers(graph, &fused);
            let key = (0..n).map(|v| (level[v], v)).collect();
            return Ok((
                Some(IlpDecision {
                    decision: Decision { fused, key },
                    proven_optimal: true,
                    windowed: false,
                    stats,
                }),
                stats,
            ));
        }
        // A row met twice means the solver ignored it: give up rather
        // than loop.
        if !add(&mut built.lp, rows) || left == 0 {
            return Ok((None, stats));
        }
    }
}

/// Rows violated by `values` (fractional or not): for each program edge
/// that can order its ends, the shortest closed walk through it, where a
/// candidate pair costs its `x` (stepped either way), a program edge
/// `1 - cond` (nothing when unconditional), when the walk costs less
/// than 1. For an integer solution that is every ordering edge inside a
/// cluster and every cycle of clusters.
fn violated(graph: &FusionGraph, built: &ilp::Built, values: &[f64]) -> Vec<Row> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let n = graph.graph.node_count();
    let arcs = ordering_arcs(graph, built);
    let weight = |arc: &Arc| arc.cond.map_or(0.0, |c| (1.0 - values[c]).max(0.0));
    // Steps out of each statement: pairs both ways, arcs forwards.
    let mut steps: Vec<Vec<(usize, f64, Step)>> = vec![Vec::new(); n];
    for (&(a, b), &xv) in &built.x {
        let w = values[xv].max(0.0);
        steps[a].push((b, w, Step::Pair(xv)));
        steps[b].push((a, w, Step::Pair(xv)));
    }
    for (i, arc) in arcs.iter().enumerate() {
        steps[arc.from].push((arc.to, weight(arc), Step::Arc(i)));
    }
    let mut rows = Vec::new();
    for arc in &arcs {
        let limit = 1.0 - weight(arc) - 1e-6;
        if limit <= 0.0 {
            continue;
        }
        // Dijkstra from the arc's head back to its tail.
        let mut dist = vec![f64::INFINITY; n];
        let mut back: Vec<Option<(usize, Step)>> = vec![None; n];
        let mut heap = BinaryHeap::from([Reverse((0f64.to_bits(), arc.to))]);
        dist[arc.to] = 0.0;
        while let Some(Reverse((d, u))) = heap.pop() {
            let d = f64::from_bits(d);
            if d > dist[u] || u == arc.from {
                continue;
            }
            for &(w, cost, step) in &steps[u] {
                let nd = d + cost;
                if nd < dist[w] && nd < limit {
                    dist[w] = nd;
                    back[w] = Some((u, step));
                    heap.push(Reverse((nd.to_bits(), w)));
                }
            }
        }
        if dist[arc.from] >= limit {
            continue;
        }
        let mut pairs = Vec::new();
        let mut walk = vec![*arc];
        let mut at = arc.from;
        while at != arc.to {
            let Some((u, step)) = back[at] else { break };
            match step {
                Step::Pair(xv) => pairs.push(xv),
                Step::Arc(k) => walk.push(arcs[k]),
            }
            at = u;
        }
        rows.push(row(&pairs, &walk));
    }
    rows
}

#[derive(Clone, Copy)]
enum Step {
    Pair(usize),
    Arc(usize),
}

/// Every program edge that can order its ends, with its condition
/// variable (`None`: it always does).
fn ordering_arcs(graph: &FusionGraph, built: &ilp::Built) -> Vec<Arc> {
    let x_of = |a: usize, b: usize| built.x.get(&(a, b)).or_else(|| built.x.get(&(b, a)));
    let mut arcs = Vec::new();
    for e in graph.graph.edge_references() {
        let (u, v) = (e.source().index(), e.target().index());
        let cond = x_of(u, v).copied().filter(|_| e.weight().fusible);
        arcs.push(Arc {
            from: u,
            to: v,
            cond,
        });
    }
    for (family, &apart) in graph.sparse_groups.iter().zip(&built.family_apart) {
        for &(s, c) in &family.width_uses {
            arcs.push(Arc {
                from: s,
                to: c,
                cond: apart,
            });
        }
    }
    arcs
}

/// `sum(x over terms) + sum(1 - cond over arcs) >= 1`.
fn row(terms: &[usize], arcs: &[Arc]) -> Row {
    let mut coeff: BTreeMap<usize, f64> = BTreeMap::new();
    for &v in terms.iter() {
        coeff.insert(v, 1.0);
    }
    let mut rhs = 1.0;
    for cond in arcs.iter().filter_map(|a| a.cond) {
        *coeff.entry(cond).or_insert(0.0) -= 1.0;
        rhs -= 1.0;
    }
    coeff.retain(|_, k| *k != 0.0);
    Row {
        terms: coeff.into_iter().collect(),
        cmp: Cmp::Ge,
        rhs,
    }
}
