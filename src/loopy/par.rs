//! Parallel plans: how a multicore backend runs each `LoopNest` (a
//! `LoopNest` in, a `NestPlan` out, stored in the nest by the `loopy-plan`
//! pass), printed by `--emit loopy` and run as printed by the code
//! generator.
//!
//! - Independent iterations (maps, scatters): chunks on all threads.
//! - Reductions: per-chunk partial results combined in chunk order.
//! - Scans and compactions: a single pass with decoupled look-back. Each
//!   chunk runs the *totals* slice of the body (only what the scans' and
//!   compactions' carried values need, no writes), publishes its totals,
//!   combines its predecessors' published totals into its carry-in, and
//!   runs the body from there while its input is still in the cache.
//!   Reductions in the same nest restart from their neutral element in every
//!   chunk and are combined as partials.
//! - Histograms: atomic read-modify-write, or private bins per thread when
//!   they are few (decided at run time from the sizes).
//! - Anything else (a carried array, a scan whose totals would run a check
//!   on a value that is only right with its carry-in) runs sequentially; nests
//!   inside it may still run in parallel.

use super::ir::{
    block_vars, for_each_binder, Block, Function, LoopNest, LoopShape, NestPlan, Origin, ParPlan,
    Parallelism, SeqForm, Stmt,
};
use super::Tuning;
use crate::core::ir::{Atom, Type, VarId};
use std::collections::{BTreeSet, HashMap, HashSet};

impl ParPlan {
    /// How the plan reads in `--emit loopy`.
    pub fn describe(&self, par: Parallelism) -> String {
        match self {
            ParPlan::Chunked => "chunked".into(),
            ParPlan::Partials => "per-chunk partials".into(),
            ParPlan::TwoPhase { .. } if par == Parallelism::Compact => {
                "look-back compaction".into()
            }
            ParPlan::TwoPhase { .. } => "look-back scan".into(),
            ParPlan::Hist { atomic, private } => match (atomic, private) {
                (true, true) => "atomic or private bins by size".into(),
                (true, false) => "atomic".into(),
                (false, true) => "private bins or one thread by size".into(),
                (false, false) => "one thread".into(),
            },
            ParPlan::Sequential(why) => format!("sequential: {why}"),
        }
    }
}

/// The `loopy-plan` pass: every nest of `f`, at any depth, gets the plan
/// it runs by (`LoopNest::plan`).
pub fn plan_nests(f: &mut Function, tuning: &Tuning) {
    let mut types = HashMap::new();
    for p in &f.params {
        types.insert(p.var.id, p.var.ty);
    }
    for_each_binder(&f.body, &mut |v| {
        types.insert(v.id, v.ty);
    });
    let sequential = std::mem::take(&mut f.sequential);
    plan_block(&mut f.body, &types, tuning, &sequential);
    f.sequential = sequential;
}

fn plan_block(
    block: &mut Block,
    types: &HashMap<VarId, Type>,
    tuning: &Tuning,
    sequential: &[Origin],
) {
    for stmt in block {
        match stmt {
            Stmt::If {
                then_block,
                else_block,
                ..
            } => {
                plan_block(then_block, types, tuning, sequential);
                plan_block(else_block, types, tuning, sequential);
            }
            Stmt::SeqLoop(lp) => {
                if let SeqForm::While { cond, .. } = &mut lp.form {
                    plan_block(cond, types, tuning, sequential);
                }
                plan_block(&mut lp.body, types, tuning, sequential);
            }
            Stmt::Loop(nest) => {
                plan_block(&mut nest.body, types, tuning, sequential);
                for op in nest.operators_mut() {
                    plan_block(&mut op.body, types, tuning, sequential);
                }
                let plan = if sequential.contains(&nest.origin) {
                    NestPlan {
                        strategy: ParPlan::Sequential("#[sequential]"),
                        grain: tuning.grain.map(|g| grain(nest, &g)),
                        body: super::chunk::shape(nest, &nest.body, false),
                        totals: None,
                    }
                } else {
                    nest_plan(nest, types, tuning)
                };
                if matches!(plan.body, LoopShape::Strided) {
                    super::select::flatten_picks(nest);
                }
                nest.plan = Some(Box::new(plan));
            }
            _ => {}
        }
    }
}

/// The plan of one nest: its strategy, grain and loop shapes.
pub fn nest_plan(nest: &LoopNest, types: &HashMap<VarId, Type>, tuning: &Tuning) -> NestPlan {
    let mut strategy = plan(nest);
    let bins = nest.hists.iter().flat_map(|h| &h.bins);
    if let (ParPlan::Hist { .. }, true) = (&strategy, bins.clone().count() > 0) {
        // Bins of rows: neither atomics nor private scalar bins apply.
        if bins
            .clone()
            .any(|b| types.get(b).map(|t| t.rank()) != Some(1))
        {
            strategy = ParPlan::Sequential("histogram of rows");
        }
    }
    let lanes = matches!(strategy, ParPlan::TwoPhase { .. }) && super::chunk::runs_in_lanes(nest);
    let totals = match &strategy {
        ParPlan::TwoPhase { totals } => Some(super::chunk::shape(nest, totals, false)),
        _ => None,
    };
    NestPlan {
        grain: tuning.grain.map(|g| grain(nest, &g)),
        body: super::chunk::shape(nest, &nest.body, lanes),
        totals,
        strategy,
    }
}

/// The strategy a nest's carried state allows.
pub fn plan(nest: &LoopNest) -> ParPlan {
    if nest.carried().any(|c| matches!(c.var.ty, Type::Array(..))) {
        return ParPlan::Sequential("carries an array");
    }
    match nest.par {
        Parallelism::Map | Parallelism::Scatter => ParPlan::Chunked,
        Parallelism::Reduce => ParPlan::Partials,
        Parallelism::Scan | Parallelism::Compact => match totals_body(nest) {
            Some(totals) => ParPlan::TwoPhase { totals },
            None => ParPlan::Sequential("a scan's totals depend on another carried value"),
        },
        // A histogram's one bins array can be updated by an atomic
        // instruction or compare-and-swap, each histogram's on its own; a
        // histogram of tuples has several arrays that must change together,
        // so only private bins (or one thread) keep them consistent. Bins of
        // rows run sequentially (`nest_plan`, which knows the ranks).
        Parallelism::Hist => ParPlan::Hist {
            atomic: nest.hists.iter().all(|h| h.bins.len() == 1),
            private: true,
        },
    }
}

/// How a target sizes the parallel tasks of a nest (`Tuning::grain`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grain {
    /// Statements a task should run at least (a few microseconds' work).
    pub task_cost: u64,
    /// Iterations a task holds at most.
    pub max_iterations: u64,
}

/// Iterations worth handing to a thread: fewer for heavier bodies (an inner
/// loop counts as heavy), so that a chunk costs at least `task_cost`.
pub fn grain(nest: &LoopNest, tuning: &Grain) -> i64 {
    let cost = block_cost(&nest.body).max(1);
    (tuning.task_cost / cost).clamp(1, tuning.max_iterations) as i64
}

fn block_cost(block: &Block) -> u64 {
    block
        .iter()
        .map(|s| match s {
            Stmt::If {
                then_block,
                else_block,
                ..
            } => 1 + block_cost(then_block).max(block_cost(else_block)),
            Stmt::SeqLoop(lp) => 1 + 64 * block_cost(&lp.body),
            Stmt::Loop(inner) => 1 + 64 * block_cost(&inner.body),
            Stmt::Copy { .. } => 16,
            _ => 1,
        })
        .fold(0u64, |a, b| a.saturating_add(b))
}

/// The slice of the body that computes the scans' and compactions' next
/// values, or `None` when running it on a chunk without its carry-in could
/// go wrong: it would check (and fail on) a value derived from a carried
/// value, write to an array from outside the body, or feed one scan's
/// carried value into another's total.
pub fn totals_body(nest: &LoopNest) -> Option<Block> {
    let groups: Vec<(Vec<VarId>, Vec<&Atom>)> = nest
        .scans
        .iter()
        .map(|s| {
            (
                s.carried.iter().map(|c| c.var.id).collect(),
                s.carried.iter().map(|c| &c.next).collect(),
            )
        })
        .chain(
            nest.compactions
                .iter()
                .map(|c| (vec![c.count.var.id], vec![&c.count.next])),
        )
        .collect();
    if groups.is_empty() {
        return None;
    }
    let mut local = BTreeSet::new();
    let mut local_defs = HashSet::new();
    block_vars(&nest.body, &mut local, &mut local_defs);
    let mut aliases = HashMap::new();
    views(&nest.body, &mut aliases);
    let local_defs = Locals {
        defs: local_defs,
        aliases,
    };
    let mut needed: HashSet<VarId> = groups
        .iter()
        .flat_map(|(_, nexts)| nexts.iter().filter_map(|a| atom_var(a)))
        .collect();
    // Frees come after the last use, so the slice is grown to a fixed point.
    let totals = loop {
        let before = needed.len();
        let sliced = slice(&nest.body, &mut needed, &local_defs);
        if needed.len() == before {
            break sliced;
        }
    };
    if writes_outside(&totals, &local_defs.defs) {
        return None;
    }
    for (k, (vars, _)) in groups.iter().enumerate() {
        let mut tainted: HashSet<VarId> = vars.iter().copied().collect();
        if !taint_is_harmless(&totals, &mut tainted) {
            return None;
        }
        let others = groups.iter().enumerate().filter(|(j, _)| *j != k);
        let leaks = others
            .flat_map(|(_, (_, nexts))| nexts.iter())
            .any(|a| atom_var(a).is_some_and(|v| tainted.contains(&v)));
        if leaks {
            return None;
        }
    }
    Some(totals)
}

fn atom_var(a: &Atom) -> Option<VarId> {
    match a {
        Atom::Var(v) => Some(*v),
        Atom::Const(_) => None,
    }
}

fn stmt_vars(stmt: &Stmt) -> (BTreeSet<VarId>, HashSet<VarId>) {
    let mut uses = BTreeSet::new();
    let mut defs = HashSet::new();
    block_vars(std::slice::from_ref(stmt), &mut uses, &mut defs);
    (uses, defs)
}

/// The variables defined in a nest's body, and the array each row or view
/// among them shares memory with.
struct Locals {
    defs: HashSet<VarId>,
    aliases: HashMap<VarId, VarId>,
}

impl Locals {
    /// Whether writing to `array` stores into a needed array of the body:
    /// itself, or the array it is a row or view of (a nest filling a local
    /// two-dimensional array writes to its rows).
    fn fills(&self, array: VarId, needed: &HashSet<VarId>) -> bool {
        let mut a = array;
        for _ in 0..=self.aliases.len() {
            if needed.contains(&a) && self.defs.contains(&a) {
                return true;
            }
            match self.aliases.get(&a) {
                Some(base) => a = *base,
                None => return false,
            }
        }
        false
    }
}

/// Records, at any depth, which array each `Row` and `View` shares memory with.
fn views(block: &[Stmt], out: &mut HashMap<VarId, VarId>) {
    for stmt in block {
        match stmt {
            Stmt::Row { var, array, .. } | Stmt::View { var, array, .. } => {
                out.insert(var.id, *array);
            }
            Stmt::If {
                then_block,
                else_block,
                ..
            } => {
                views(then_block, out);
                views(else_block, out);
            }
            Stmt::SeqLoop(lp) => views(&lp.body, out),
            Stmt::Loop(inner) => views(&inner.body, out),
            _ => {}
        }
    }
}

/// Whether `block` (at any depth) stores into a needed array defined in
/// the body: a nest or branch that fills one belongs to the slice even
/// though it defines nothing the slice needs.
fn fills_needed(block: &[Stmt], needed: &HashSet<VarId>, local: &Locals) -> bool {
    let is_needed = |a: &VarId| local.fills(*a, needed);
    block.iter().any(|stmt| match stmt {
        Stmt::Write { array, .. } | Stmt::Copy { array, .. } => is_needed(array),
        Stmt::If {
            then_block,
            else_block,
            ..
        } => fills_needed(then_block, needed, local) || fills_needed(else_block, needed, local),
        Stmt::SeqLoop(lp) => fills_needed(&lp.body, needed, local),
        Stmt::Loop(inner) => {
            let outputs = inner
                .scatters
                .iter()
                .chain(inner.hists.iter().flat_map(|h| &h.bins));
            let outputs = outputs
                .chain(inner.scans.iter().flat_map(|s| &s.outputs))
                .chain(inner.compactions.iter().flat_map(|c| &c.outputs));
            outputs.into_iter().any(is_needed) || fills_needed(&inner.body, needed, local)
        }
        _ => false,
    })
}

/// Keeps, in order, the statements of `block` that define something in
/// `needed` (growing it with their uses), plus writes and checks on needed
/// arrays defined in the body (also inside nests and branches), and frees
/// of needed arrays.
fn slice(block: &Block, needed: &mut HashSet<VarId>, local: &Locals) -> Block {
    let mut kept = Vec::new();
    for stmt in block.iter().rev() {
        let keep = match stmt {
            Stmt::If {
                results,
                cond,
                then_block,
                then_results,
                else_block,
                else_results,
            } => {
                let fills = fills_needed(std::slice::from_ref(stmt), needed, local);
                if fills || results.iter().any(|r| needed.contains(&r.id)) {
                    needed.extend(then_results.iter().chain(else_results).filter_map(atom_var));
                    needed.extend(atom_var(cond));
                    let then_block = slice(then_block, needed, local);
                    let else_block = slice(else_block, needed, local);
                    kept.push(Stmt::If {
                        results: results.clone(),
                        cond: *cond,
                        then_block,
                        then_results: then_results.clone(),
                        else_block,
                        else_results: else_results.clone(),
                    });
                }
                continue;
            }
            Stmt::Write { array, .. } | Stmt::Copy { array, .. } => local.fills(*array, needed),
            Stmt::BoundsCheck { array, .. } => needed.contains(array),
            Stmt::Free(array) => needed.contains(array),
            // A check of what the totals compute stays: reads after it
            // may be proven in range only under it (a view's start and
            // count, an index), and it fails where the body would.
            Stmt::Assert { .. }
            | Stmt::AssertEq { .. }
            | Stmt::SizeCheck { .. }
            | Stmt::IndexCheck { .. }
            | Stmt::SliceCheck { .. } => {
                let (uses, _) = stmt_vars(stmt);
                uses.iter().any(|u| needed.contains(u))
            }
            // Nests and sequential loops also when they fill a needed array.
            _ => {
                let (_, defs) = stmt_vars(stmt);
                defs.iter().any(|d| needed.contains(d))
                    || fills_needed(std::slice::from_ref(stmt), needed, local)
            }
        };
        if keep {
            let (uses, _) = stmt_vars(stmt);
            needed.extend(uses);
            kept.push(stmt.clone());
        }
    }
    kept.reverse();
    kept
}

/// Whether a statement of `block` (at any depth) writes to an array that
/// is not defined in the body.
fn writes_outside(block: &Block, local: &HashSet<VarId>) -> bool {
    block.iter().any(|stmt| match stmt {
        Stmt::Write { array, .. } | Stmt::Copy { array, .. } | Stmt::InPlace { array, .. } => {
            !local.contains(array)
        }
        Stmt::If {
            then_block,
            else_block,
            ..
        } => writes_outside(then_block, local) || writes_outside(else_block, local),
        Stmt::SeqLoop(lp) => writes_outside(&lp.body, local),
        Stmt::Loop(inner) => writes_outside(&inner.body, local),
        _ => false,
    })
}

/// Follows `tainted` forward through `block`; false when a statement that
/// may stop the program (a check, a division, an allocation) depends on it.
fn taint_is_harmless(block: &Block, tainted: &mut HashSet<VarId>) -> bool {
    for stmt in block {
        let (uses, defs) = stmt_vars(stmt);
        if !uses.iter().any(|u| tainted.contains(u)) {
            continue;
        }
        if can_fail(stmt) {
            return false;
        }
        tainted.extend(defs);
    }
    true
}

/// Whether `stmt` (at any depth) may fail at run time.
pub fn can_fail(stmt: &Stmt) -> bool {
    match stmt {
        Stmt::Let { exp, .. } => exp.may_fail(),
        Stmt::Read { check, .. } | Stmt::Row { check, .. } => check.is_some(),
        Stmt::Write { .. } | Stmt::View { .. } | Stmt::Free(_) | Stmt::InPlace { .. } => false,
        Stmt::If {
            then_block,
            else_block,
            ..
        } => then_block.iter().chain(else_block).any(can_fail),
        Stmt::SeqLoop(lp) => {
            let cond_can_fail = match &lp.form {
                SeqForm::While { cond, .. } => cond.iter().any(can_fail),
                SeqForm::For { .. } => false,
            };
            cond_can_fail || lp.body.iter().any(can_fail)
        }
        Stmt::Loop(inner) => inner.body.iter().any(can_fail),
        Stmt::Copy { .. } => false,
        Stmt::Alloc { .. }
        | Stmt::AssertEq { .. }
        | Stmt::Assert { .. }
        | Stmt::SizeCheck { .. }
        | Stmt::IndexCheck { .. }
        | Stmt::BoundsCheck { .. }
        | Stmt::SliceCheck { .. } => true,
    }
}
