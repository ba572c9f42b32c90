//! The integer linear programs of `ilp` handed to the solver: a model as
//! plain columns and rows goes in (`Lp`), the values of the best assignment
//! found and whether it is proven optimal come out (`Outcome`).
//!
//! The solver is `microlp` (pure Rust), which stops after a number of
//! branch-and-bound nodes, never on the clock, so the same program always
//! fuses the same way. Keeping the model apart from the solver is what let
//! HiGHS be measured against it (docs/fusion.md).
//!
//! Limits are in *work units*, not nodes: a node of a large LP costs far
//! more than one of a small LP (about 2 ms for the 46-SOAC group of
//! `tests/programs/ilp_slow_unrolled.arr`, 265,000 rows times
//! columns), so each node is charged by the LP's size (`node_cost`), and a
//! budget of units bounds the time in practice as well as
//! deterministically.

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

/// Rows times columns that one work unit pays for. A node costs 2.6 to
/// 12.5 ns per cell, whatever the LP's size (measured from 15,000 to
/// 265,000 cells, docs/fusion.md), so a unit is 10 to 50 µs and the
/// default budget of 20,000 units (`fusion::NODE_LIMIT`) about a second
/// at most. A node
/// of an LP of up to 64 rows and columns costs one unit, as every node
/// did before nodes were weighted.
pub const CELLS_PER_UNIT: u64 = 4096;

/// Work units one branch-and-bound node (or one solve of a linear
/// relaxation) of `lp` costs: its rows times its columns, in units of
/// `CELLS_PER_UNIT`, at least one. A node's pivots grow with both.
pub(super) fn node_cost(lp: &Lp) -> u64 {
    let cells = (lp.rows.len().max(1) as u64).saturating_mul(lp.columns.len().max(1) as u64);
    cells.div_ceil(CELLS_PER_UNIT)
}

pub(super) struct Outcome {
    /// One value per column; `None` when the solver found no assignment.
    pub values: Option<Vec<f64>>,
    pub proven_optimal: bool,
    /// Branch-and-bound nodes used.
    pub nodes: u64,
    /// Work units used: `node_cost` per node, the root's included.
    pub work: u64,
    /// Rows times columns summed over the nodes: what the work stands for,
    /// reported so that tests can bound it (`--fusion-stats`).
    pub cells: u64,
}

/// Solves `lp` within `work` units (`node_cost` each node). With less
/// than one node's cost left nothing is solved (`values` is `None`).
pub(super) fn solve(lp: &Lp, work: u64) -> Result<Outcome, String> {
    let cost = node_cost(lp);
    let nodes = work / cost;
    if nodes == 0 {
        return Ok(Outcome {
            values: None,
            proven_optimal: false,
            nodes: 0,
            work: 0,
            cells: 0,
        });
    }
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
    let cells = (lp.rows.len().max(1) as u64).saturating_mul(lp.columns.len().max(1) as u64);
    let charged = |nodes: u64| {
        let solved = nodes.max(1);
        (solved.saturating_mul(cost), solved.saturating_mul(cells))
    };
    Ok(match outcome.into_solution() {
        Ok(solution) => {
            let nodes = solution.stats().nodes_solved;
            let (work, cells) = charged(nodes);
            Outcome {
                proven_optimal: matches!(solution.status(), microlp::SolutionStatus::Optimal),
                nodes,
                work,
                cells,
                values: Some(vars.iter().map(|&v| solution.var_value(v)).collect()),
            }
        }
        Err(interrupted) => {
            let nodes = interrupted.stats().nodes_solved;
            let (work, cells) = charged(nodes);
            Outcome {
                values: None,
                proven_optimal: false,
                nodes,
                work,
                cells,
            }
        }
    })
}
