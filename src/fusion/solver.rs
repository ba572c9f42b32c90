//! The integer linear programs of `ilp` handed to the solver: a model as
//! plain columns and rows goes in (`Lp`), the values of the best assignment
//! found and whether it is proven optimal come out (`Outcome`).
//!
//! The solver is `microlp` (pure Rust), which stops after a number of
//! branch-and-bound nodes, never on the clock, so the same program always
//! fuses the same way. Keeping the model apart from the solver is what let
//! HiGHS be measured against it (docs/fusion.md).

#[derive(Clone, Copy)]
pub(super) struct Column {
    pub cost: f64,
    pub lo: f64,
    pub hi: f64,
    pub integer: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Cmp {
    Le,
    Ge,
    Eq,
}

pub(super) struct Row {
    pub terms: Vec<(usize, f64)>,
    pub cmp: Cmp,
    pub rhs: f64,
}

/// A minimisation over `columns` subject to `rows`, with a feasible
/// starting assignment (`start`, one value per column).
#[derive(Default)]
pub(super) struct Lp {
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
    pub start: Vec<f64>,
}

pub(super) struct Outcome {
    /// One value per column; `None` when the solver found no assignment.
    pub values: Option<Vec<f64>>,
    pub proven_optimal: bool,
    /// Branch-and-bound nodes used.
    pub nodes: u64,
}

pub(super) fn solve(lp: &Lp, nodes: u64) -> Result<Outcome, String> {
    use microlp::{ComparisonOp, LinearExpr, OptimizationDirection, Problem};
    let mut problem = Problem::new(OptimizationDirection::Minimize);
    let clamp = |v: f64| v.clamp(i32::MIN as f64, i32::MAX as f64) as i32;
    let vars: Vec<microlp::Variable> = lp
        .columns
        .iter()
        .map(|c| match (c.integer, c.lo, c.hi) {
            (true, 0.0, 1.0) => problem.add_binary_var(c.cost),
            (true, lo, hi) => problem.add_integer_var(c.cost, (clamp(lo), clamp(hi))),
            (false, lo, hi) => problem.add_var(c.cost, (lo, hi)),
        })
        .collect();
    for row in &lp.rows {
        let op = match row.cmp {
            Cmp::Le => ComparisonOp::Le,
            Cmp::Ge => ComparisonOp::Ge,
            Cmp::Eq => ComparisonOp::Eq,
        };
        let expr: LinearExpr = row.terms.iter().map(|&(i, k)| (vars[i], k)).collect();
        problem.add_constraint(expr, op, row.rhs);
    }
    let mut options = microlp::SolveOptions::default();
    options.node_limit = Some(nodes);
    options.warm_start = Some(vars.iter().copied().zip(lp.start.iter().copied()).collect());
    let outcome = problem.solve_with(options).map_err(|e| e.to_string())?;
    Ok(match outcome.into_solution() {
        Ok(solution) => Outcome {
            proven_optimal: matches!(solution.status(), microlp::SolutionStatus::Optimal),
            nodes: solution.stats().nodes_solved,
            values: Some(vars.iter().map(|&v| solution.var_value(v)).collect()),
        },
        Err(interrupted) => Outcome {
            values: None,
            proven_optimal: false,
            nodes: interrupted.stats().nodes_solved,
        },
    })
}
