//! Optimal clustering by integer linear programming (van Balen's formulation
//! over Megiddo and Sarkar's): a cluster number per statement, a 0/1 variable
//! per fusible edge and sibling pair (0 = fused), an order code per SOAC and
//! a manifest flag per array; minimise the element traffic.

use super::cluster::Decision;
use super::graph::{FusionGraph, Order, SizeClass};
use crate::core::ir::VarId;
use good_lp::{
    constraint, microlp, variable, Expression, ProblemVariables, ResolutionError, Solution,
    SolverModel, Variable, WithTimeLimit,
};
use petgraph::visit::EdgeRef;
use std::collections::BTreeMap;
use std::time::Duration;

/// The weight of an array whose size is only known at run time: every such
/// array counts the same, so the model minimises traffic in units of `n`.
pub const SYMBOLIC_SIZE: f64 = 1000.0;

const LEFT_TO_RIGHT: f64 = -2.0;

pub fn weight(class: Option<&SizeClass>) -> f64 {
    match class {
        Some(SizeClass::Const(k)) => (*k).max(1) as f64,
        _ => SYMBOLIC_SIZE,
    }
}

#[derive(Debug)]
pub enum IlpFailure {
    TimeLimit,
    Solver(String),
}

/// Which ILP solver runs: `microlp` is embedded; CBC needs the `cbc` feature
/// (and Debian's coinor-libcbc-dev).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Solver {
    Microlp,
    Cbc,
}

pub fn decide(
    graph: &FusionGraph,
    solver: Solver,
    time_limit: Duration,
) -> Result<Decision, IlpFailure> {
    let g = &graph.graph;
    let n = g.node_count();
    if n == 0 {
        return Ok(Decision {
            fused: Vec::new(),
            key: Vec::new(),
        });
    }
    let big = n as f64;
    let mut vars = ProblemVariables::new();
    let pi: Vec<Variable> = (0..n)
        .map(|_| vars.add(variable().integer().min(0).max(big)))
        .collect();
    // Order code: -2 left to right, 0..n the free choice of an element-wise node.
    let order: Vec<Option<Variable>> = g
        .node_indices()
        .map(|v| {
            g[v].soac
                .as_ref()
                .map(|_| vars.add(variable().integer().min(LEFT_TO_RIGHT).max(big)))
        })
        .collect();
    let order_span = big + 3.0;

    let fusible: Vec<_> = g.edge_references().filter(|e| e.weight().fusible).collect();
    let x_edge: Vec<Variable> = fusible
        .iter()
        .map(|_| vars.add(variable().binary()))
        .collect();
    let x_sibling: Vec<Variable> = graph
        .siblings
        .iter()
        .map(|_| vars.add(variable().binary()))
        .collect();

    // Manifest flags for arrays that a fused edge could keep out of memory.
    let mut manifest: BTreeMap<VarId, Variable> = BTreeMap::new();
    for e in &fusible {
        for v in &e.weight().vars {
            if !graph.always_manifest.contains(v) {
                manifest
                    .entry(*v)
                    .or_insert_with(|| vars.add(variable().binary()));
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
    // Shared reads: reward fusing consecutive readers of the same array.
    for (s, x) in graph.siblings.iter().zip(&x_sibling) {
        let shared: f64 = s.shared.iter().map(|v| weight(graph.sizes.get(v))).sum();
        objective += shared * *x;
    }

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
    for (s, &x) in graph.siblings.iter().zip(&x_sibling) {
        let (a, b) = (s.a.index(), s.b.index());
        constraints.push(constraint!(pi[a] - pi[b] <= big * x));
        constraints.push(constraint!(pi[b] - pi[a] <= big * x));
        if let (Some(oa), Some(ob)) = (order[a], order[b]) {
            constraints.push(constraint!(oa - ob <= order_span * x));
            constraints.push(constraint!(ob - oa <= order_span * x));
        }
    }
    // Order codes of each SOAC kind: element-wise nodes read and write in the
    // same order; scans only left to right.
    for v in g.node_indices() {
        if let (Some(soac), Some(o)) = (&g[v].soac, order[v.index()]) {
            if soac.in_order == Order::LeftToRight || soac.out_order == Order::LeftToRight {
                constraints.push(constraint!(o == LEFT_TO_RIGHT));
            }
        }
    }
    // Among optimal solutions prefer early cluster numbers, for stable output.
    let tie_break: Expression = pi.iter().map(|p| 1e-3 / (big + 1.0) * *p).sum();
    objective += tie_break;

    let problem = vars.minimise(objective);
    let values: Vec<f64> = match solver {
        Solver::Microlp => solve(
            problem.using(microlp),
            constraints,
            time_limit,
            &x_edge,
            &x_sibling,
            &pi,
        )?,
        #[cfg(feature = "cbc")]
        Solver::Cbc => solve(
            problem.using(good_lp::coin_cbc),
            constraints,
            time_limit,
            &x_edge,
            &x_sibling,
            &pi,
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
    Ok(Decision { fused, key })
}

/// Solves with any good_lp backend; returns the values of the edge, sibling
/// and cluster-number variables, in that order.
fn solve<M>(
    mut model: M,
    constraints: Vec<good_lp::Constraint>,
    time_limit: Duration,
    x_edge: &[Variable],
    x_sibling: &[Variable],
    pi: &[Variable],
) -> Result<Vec<f64>, IlpFailure>
where
    M: SolverModel + WithTimeLimit,
    M::Error: Into<ResolutionError>,
{
    model = model.with_time_limit(time_limit.as_secs_f64());
    for c in constraints {
        model = model.with(c);
    }
    let solution = model.solve().map_err(|e| match e.into() {
        ResolutionError::Other(msg) if msg.to_lowercase().contains("time") => IlpFailure::TimeLimit,
        other => IlpFailure::Solver(other.to_string()),
    })?;
    Ok(x_edge
        .iter()
        .chain(x_sibling)
        .chain(pi)
        .map(|v| solution.value(*v))
        .collect())
}
