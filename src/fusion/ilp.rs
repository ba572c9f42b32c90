//! Optimal clustering by integer linear programming (van Balen's formulation
//! over Megiddo and Sarkar's): a cluster number per statement, a 0/1 variable
//! per fusible edge and sibling pair (0 = fused), an order code per SOAC and
//! a manifest flag per array; minimise the element traffic.
//!
//! Cluster numbers are bounded by longest paths, so the big-M constants are
//! the graph's depth rather than its size, and the solver starts from the
//! greedy clustering: the answer is never worse than greedy, even when the
//! time limit stops the search before optimality is proven.

use super::cluster::Decision;
use super::graph::{FusionGraph, Order, SizeClass};
use crate::core::ir::VarId;
use good_lp::{
    constraint, microlp, variable, Expression, ProblemVariables, ResolutionError, Solution,
    SolutionStatus, SolverModel, Variable, WithInitialSolution, WithTimeLimit,
};
use petgraph::visit::EdgeRef;
use petgraph::Direction;
use std::collections::BTreeMap;
use std::time::Duration;

/// The weight of an array whose size is only known at run time: every such
/// array counts the same, so the model minimises traffic in units of `n`.
pub const SYMBOLIC_SIZE: f64 = 1000.0;

/// Order codes: the only fixed orders so far are left to right (scans) and
/// right to left; element-wise SOACs take whichever their partners need.
const LEFT_TO_RIGHT: f64 = -2.0;
const RIGHT_TO_LEFT: f64 = -1.0;

pub fn weight(class: Option<&SizeClass>) -> f64 {
    match class {
        Some(SizeClass::Const(k)) => (*k).max(1) as f64,
        _ => SYMBOLIC_SIZE,
    }
}

#[derive(Debug)]
pub enum IlpFailure {
    Solver(String),
}

/// Which ILP solver runs: `microlp` is embedded; CBC needs the `cbc` feature
/// (and Debian's coinor-libcbc-dev).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Solver {
    Microlp,
    Cbc,
}

/// The solver's clustering, and whether it is proven optimal (false when the
/// time limit stopped the search: then it is the best found, at least greedy).
pub struct IlpDecision {
    pub decision: Decision,
    pub proven_optimal: bool,
    /// Solved window by window (`decompose`): never proven optimal.
    pub windowed: bool,
}

/// Longest-path bounds on the cluster numbers. Statements are in program
/// order, so every edge goes from a lower to a higher index.
struct Levels {
    /// Fewest clusters that must precede each statement (preventing edges).
    earliest: Vec<i64>,
    /// Fewest clusters that must follow it.
    tail: Vec<i64>,
    /// Enough cluster numbers for any clustering: the longest path.
    depth: i64,
}

fn levels(graph: &FusionGraph) -> Levels {
    let g = &graph.graph;
    let n = g.node_count();
    let mut earliest = vec![0i64; n];
    let mut any = vec![0i64; n];
    for v in g.node_indices() {
        for e in g.edges_directed(v, Direction::Incoming) {
            let u = e.source().index();
            let step = i64::from(!e.weight().fusible);
            earliest[v.index()] = earliest[v.index()].max(earliest[u] + step);
            any[v.index()] = any[v.index()].max(any[u] + 1);
        }
    }
    let mut tail = vec![0i64; n];
    for v in g.node_indices().rev() {
        for e in g.edges_directed(v, Direction::Outgoing) {
            let w = e.target().index();
            let step = i64::from(!e.weight().fusible);
            tail[v.index()] = tail[v.index()].max(tail[w] + step);
        }
    }
    let depth = any.iter().copied().max().unwrap_or(0).max(1);
    Levels {
        earliest,
        tail,
        depth,
    }
}

/// Cluster numbers for a given set of fused pairs: each cluster as early as
/// its predecessors allow.
pub(super) fn cluster_numbers(graph: &FusionGraph, fused: &[(usize, usize)]) -> Vec<i64> {
    let n = graph.graph.node_count();
    let mut root: Vec<usize> = (0..n).collect();
    fn find(root: &mut [usize], mut x: usize) -> usize {
        while root[x] != x {
            root[x] = root[root[x]];
            x = root[x];
        }
        x
    }
    for &(a, b) in fused {
        let (ra, rb) = (find(&mut root, a), find(&mut root, b));
        root[ra.max(rb)] = ra.min(rb);
    }
    let cluster: Vec<usize> = (0..n).map(|v| find(&mut root, v)).collect();
    let mut level = vec![0i64; n];
    // Relax to a fixed point; the cluster graph is acyclic, so at most n rounds.
    for _ in 0..=n {
        let mut changed = false;
        for e in graph.graph.edge_references() {
            let (cu, cv) = (cluster[e.source().index()], cluster[e.target().index()]);
            if cu != cv && level[cv] < level[cu] + 1 {
                level[cv] = level[cu] + 1;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    (0..n).map(|v| level[cluster[v]]).collect()
}

/// Cluster numbers in which every cluster has a number of its own: the
/// clusters of `cluster_numbers` in its order, numbered one after another.
fn distinct_cluster_numbers(graph: &FusionGraph, fused: &[(usize, usize)]) -> Vec<i64> {
    let level = cluster_numbers(graph, fused);
    let n = level.len();
    let mut sets = super::cluster::UnionFind::new(n);
    for &(a, b) in fused {
        sets.union(a, b);
    }
    let mut roots: Vec<(i64, usize)> = (0..n)
        .filter(|&v| sets.find(v) == v)
        .map(|v| (level[v], v))
        .collect();
    roots.sort_unstable();
    let mut number = vec![0i64; n];
    for (k, &(_, root)) in roots.iter().enumerate() {
        number[root] = k as i64;
    }
    (0..n).map(|v| number[sets.find(v)]).collect()
}

pub fn decide(
    graph: &FusionGraph,
    start: &Decision,
    solver: Solver,
    time_limit: Duration,
) -> Result<IlpDecision, IlpFailure> {
    let g = &graph.graph;
    let n = g.node_count();
    if n == 0 {
        return Ok(IlpDecision {
            decision: Decision {
                fused: Vec::new(),
                key: Vec::new(),
            },
            proven_optimal: true,
            windowed: false,
        });
    }
    let mut bounds = levels(graph);
    // SOACs of conflicting loop classes get different cluster numbers. When
    // neither reaches the other, that is a disjunction, and the numbers need
    // room for every cluster to have one of its own.
    let conflicts = graph.conflicts();
    let disjoint: Vec<(usize, usize)> = conflicts
        .iter()
        .copied()
        .filter(|&(a, b)| !graph.reaches(a, b))
        .collect();
    if !disjoint.is_empty() {
        bounds.depth = bounds.depth.max(n as i64);
    }
    let big = bounds.depth as f64;
    let start_pi = if disjoint.is_empty() {
        cluster_numbers(graph, &start.fused)
    } else {
        distinct_cluster_numbers(graph, &start.fused)
    };
    let start_fused: std::collections::HashSet<(usize, usize)> =
        start.fused.iter().copied().collect();
    let start_cluster_of = |a: usize, b: usize| {
        start_pi[a] == start_pi[b] && {
            // Same number is not enough: they must be connected by fused pairs.
            let mut seen = vec![a];
            let mut stack = vec![a];
            while let Some(x) = stack.pop() {
                for &(p, q) in &start.fused {
                    for (from, to) in [(p, q), (q, p)] {
                        if from == x && !seen.contains(&to) {
                            seen.push(to);
                            stack.push(to);
                        }
                    }
                }
            }
            seen.contains(&b)
        }
    };

    let mut vars = ProblemVariables::new();
    let mut warm: Vec<(Variable, f64)> = Vec::new();
    let pi: Vec<Variable> = (0..n)
        .map(|v| {
            let lo = bounds.earliest[v] as f64;
            let hi = (bounds.depth - bounds.tail[v]) as f64;
            let var = vars.add(variable().integer().min(lo).max(hi.max(lo)));
            warm.push((var, start_pi[v] as f64));
            var
        })
        .collect();
    let order: Vec<Option<Variable>> = g
        .node_indices()
        .map(|v| {
            g[v].soac.as_ref().map(|_| {
                let var = vars.add(variable().integer().min(LEFT_TO_RIGHT).max(RIGHT_TO_LEFT));
                warm.push((var, LEFT_TO_RIGHT));
                var
            })
        })
        .collect();
    let order_span = RIGHT_TO_LEFT - LEFT_TO_RIGHT;

    let fusible: Vec<_> = g.edge_references().filter(|e| e.weight().fusible).collect();
    let x_edge: Vec<Variable> = fusible
        .iter()
        .map(|e| {
            let var = vars.add(variable().binary());
            let fused = start_fused.contains(&(e.source().index(), e.target().index()));
            warm.push((var, if fused { 0.0 } else { 1.0 }));
            var
        })
        .collect();
    let x_sibling: Vec<Variable> = graph
        .siblings
        .iter()
        .map(|s| {
            let var = vars.add(variable().binary());
            let together = start_cluster_of(s.a.index(), s.b.index());
            warm.push((var, if together { 0.0 } else { 1.0 }));
            var
        })
        .collect();

    // Manifest flags for arrays that a fused edge could keep out of memory.
    let mut manifest: BTreeMap<VarId, Variable> = BTreeMap::new();
    for (e, x) in fusible.iter().zip(&x_edge) {
        let unfused = warm.iter().find(|(v, _)| v == x).map_or(1.0, |w| w.1);
        for v in &e.weight().vars {
            if graph.always_manifest.contains(v) {
                continue;
            }
            let m = *manifest.entry(*v).or_insert_with(|| {
                let var = vars.add(variable().binary());
                warm.push((var, 0.0));
                var
            });
            if unfused > 0.5 {
                if let Some(w) = warm.iter_mut().find(|(var, _)| *var == m) {
                    w.1 = 1.0;
                }
            }
        }
    }

    let mut objective = Expression::from(0.0);
    for (e, x) in fusible.iter().zip(&x_edge) {
        let reread: f64 = e
            .weight()
            .vars
            .iter()
            .map(|v| weight(graph.sizes.get(v)))
            .sum();
        objective += reread * *x;
    }
    for (v, m) in &manifest {
        objective += weight(graph.sizes.get(v)) * *m;
    }
    // Shared reads: fusing consecutive readers of an array saves one read
    // each; other pairs may fuse too but earn nothing more.
    for (s, x) in graph.siblings.iter().zip(&x_sibling) {
        if s.consecutive {
            let shared: f64 = s.shared.iter().map(|v| weight(graph.sizes.get(v))).sum();
            objective += shared * *x;
        }
    }
    // Among optimal solutions prefer early cluster numbers, for stable output.
    let tie_break: Expression = pi.iter().map(|p| 1e-3 / (n as f64 + 1.0) * *p).sum();
    objective += tie_break;

    let mut constraints = Vec::new();
    for e in g.edge_references().filter(|e| !e.weight().fusible) {
        let (u, v) = (e.source().index(), e.target().index());
        constraints.push(constraint!(pi[v] - pi[u] >= 1));
    }
    for (e, &x) in fusible.iter().zip(&x_edge) {
        let (u, v) = (e.source().index(), e.target().index());
        constraints.push(constraint!(pi[v] - pi[u] >= x));
        constraints.push(constraint!(pi[v] - pi[u] <= big * x));
        if let (Some(ou), Some(ov)) = (order[u], order[v]) {
            constraints.push(constraint!(ou - ov <= order_span * x));
            constraints.push(constraint!(ov - ou <= order_span * x));
        }
        for v in &e.weight().vars {
            if let Some(&m) = manifest.get(v) {
                constraints.push(constraint!(m >= x));
            }
        }
    }
    // A filter family fuses whole or not at all; fused, none of its arrays
    // is in memory, and unfused, a member runs after the `size` giving its
    // width (the graph has no edge for that use).
    let x_of = |pair: (usize, usize)| {
        fusible
            .iter()
            .position(|e| (e.source().index(), e.target().index()) == pair)
            .map(|k| x_edge[k])
    };
    for group in &graph.sparse_groups {
        let xs: Vec<Variable> = group.edges.iter().filter_map(|&e| x_of(e)).collect();
        let Some(&first) = xs.first() else { continue };
        for &x in &xs[1..] {
            constraints.push(constraint!(x == first));
        }
        if xs.len() != group.edges.len() {
            constraints.push(constraint!(first == 1));
        }
        for (e, &x) in fusible.iter().zip(&x_edge) {
            if group
                .edges
                .contains(&(e.source().index(), e.target().index()))
            {
                for v in &e.weight().vars {
                    if let Some(&m) = manifest.get(v) {
                        constraints.push(constraint!(m <= x));
                    }
                }
            }
        }
        for &(s, c) in &group.width_uses {
            constraints.push(constraint!(pi[c] - pi[s] >= big * first - big));
        }
    }
    for &(a, b) in &conflicts {
        if !disjoint.contains(&(a, b)) {
            constraints.push(constraint!(pi[b] - pi[a] >= 1));
            continue;
        }
        let after = vars.add(variable().binary());
        let b_after_a = if start_pi[b] > start_pi[a] { 1.0 } else { 0.0 };
        warm.push((after, b_after_a));
        constraints.push(constraint!(pi[b] - pi[a] >= 1 - (big + 1.0) * (1 - after)));
        constraints.push(constraint!(pi[a] - pi[b] >= 1 - (big + 1.0) * after));
    }
    for (s, &x) in graph.siblings.iter().zip(&x_sibling) {
        let (a, b) = (s.a.index(), s.b.index());
        constraints.push(constraint!(pi[a] - pi[b] <= big * x));
        constraints.push(constraint!(pi[b] - pi[a] <= big * x));
        if let (Some(oa), Some(ob)) = (order[a], order[b]) {
            constraints.push(constraint!(oa - ob <= order_span * x));
            constraints.push(constraint!(ob - oa <= order_span * x));
        }
    }
    for v in g.node_indices() {
        if let (Some(soac), Some(o)) = (&g[v].soac, order[v.index()]) {
            if soac.in_order == Order::LeftToRight || soac.out_order == Order::LeftToRight {
                constraints.push(constraint!(o == LEFT_TO_RIGHT));
            }
        }
    }

    let problem = vars.minimise(objective);
    let wanted: Vec<Variable> = x_edge
        .iter()
        .chain(&x_sibling)
        .chain(&pi)
        .copied()
        .collect();
    let (values, proven_optimal) = match solver {
        Solver::Microlp => solve(
            problem.using(microlp),
            constraints,
            warm,
            time_limit,
            &wanted,
        )?,
        #[cfg(feature = "cbc")]
        Solver::Cbc => solve(
            problem.using(good_lp::coin_cbc),
            constraints,
            warm,
            time_limit,
            &wanted,
        )?,
        #[cfg(not(feature = "cbc"))]
        Solver::Cbc => {
            return Err(IlpFailure::Solver(
                "this arrc was built without the `cbc` feature".into(),
            ))
        }
    };
    let (x_edge_values, rest) = values.split_at(x_edge.len());
    let (x_sibling_values, pi_values) = rest.split_at(x_sibling.len());

    let mut fused = Vec::new();
    for (e, x) in fusible.iter().zip(x_edge_values) {
        if *x < 0.5 {
            fused.push((e.source().index(), e.target().index()));
        }
    }
    for (s, x) in graph.siblings.iter().zip(x_sibling_values) {
        if *x < 0.5 {
            fused.push((s.a.index(), s.b.index()));
        }
    }
    let key = (0..n).map(|i| (pi_values[i].round() as i64, i)).collect();
    Ok(IlpDecision {
        decision: Decision { fused, key },
        proven_optimal,
        windowed: false,
    })
}

/// Solves with any good_lp backend from a warm start; returns the values of
/// `wanted` and whether optimality was proven.
fn solve<M>(
    mut model: M,
    constraints: Vec<good_lp::Constraint>,
    warm: Vec<(Variable, f64)>,
    time_limit: Duration,
    wanted: &[Variable],
) -> Result<(Vec<f64>, bool), IlpFailure>
where
    M: SolverModel + WithTimeLimit + WithInitialSolution,
    M::Error: Into<ResolutionError>,
{
    model = model
        .with_time_limit(time_limit.as_secs_f64())
        .with_initial_solution(warm);
    for c in constraints {
        model = model.with(c);
    }
    let solution = model
        .solve()
        .map_err(|e| IlpFailure::Solver(e.into().to_string()))?;
    let proven = matches!(solution.status(), SolutionStatus::Optimal);
    Ok((wanted.iter().map(|v| solution.value(*v)).collect(), proven))
}
