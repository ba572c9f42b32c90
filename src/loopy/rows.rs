//! Rows written in place (a `loopy::ir::Function` in, the same function
//! out). A function that returns a row, like the inner `map` of
//! `map (\row -> map f row) m`, is lowered as an array of its own that the
//! outer loop then copies into its output's row and frees. When nothing
//! else uses that array, it becomes a view of the output's row instead: the
//! inner loop writes there directly, and the allocation, the copy and the
//! free go.
//!
//! A row that an `if` returns (`if c then g[i] else tabulate m f`) is
//! handled per branch (`branch_rows`): where the branch's array has the
//! output row's shape, a run-time test outside the hot path, the branch
//! writes the row in place; otherwise it runs as it was lowered.

mod branch_rows;

use super::ir::{block_vars, Block, Function, SeqForm, Stmt};
use super::rename::{fresh_above, Fresh};
use crate::core::ir::{Atom, VarId};
use std::collections::{BTreeSet, HashMap, HashSet};

pub fn write_rows_in_place(f: &mut Function) {
    let mut fresh = fresh_above(f);
    let mut shapes = HashMap::new();
    alloc_shapes(&f.body, &mut shapes);
    let results: HashSet<VarId> = f
        .results
        .iter()
        .filter_map(|a| match a {
            Atom::Var(v) => Some(*v),
            Atom::Const(_) => None,
        })
        .collect();
    let mut cx = Context {
        results,
        shapes,
        fresh: &mut fresh,
    };
    block(&mut f.body, &mut cx);
}

/// What the rewrite of a block needs of the function around it.
struct Context<'a> {
    /// The function's results, never rewritten into views.
    results: HashSet<VarId>,
    /// The shape of every array an `Alloc` makes.
    shapes: HashMap<VarId, Vec<Atom>>,
    fresh: &'a mut Fresh,
}

fn alloc_shapes(stmts: &[Stmt], shapes: &mut HashMap<VarId, Vec<Atom>>) {
    for stmt in stmts {
        if let Stmt::Alloc { var, shape, .. } = stmt {
            shapes.insert(var.id, shape.clone());
        }
        for inner in stmt.inner_blocks() {
            alloc_shapes(inner, shapes);
        }
    }
}

fn block(stmts: &mut Block, cx: &mut Context) {
    for stmt in stmts.iter_mut() {
        match stmt {
            Stmt::Loop(nest) => block(&mut nest.body, cx),
            Stmt::If {
                then_block,
                else_block,
                ..
            } => {
                block(then_block, cx);
                block(else_block, cx);
            }
            Stmt::SeqLoop(lp) => {
                block(&mut lp.body, cx);
                if let SeqForm::While { cond, .. } = &mut lp.form {
                    block(cond, cx);
                }
            }
            _ => {}
        }
    }
    let mut k = 0;
    while k < stmts.len() {
        if !rewrite_at(stmts, k, &cx.results) && !branch_rows::rewrite_at(stmts, k, cx) {
            k += 1;
        }
    }
}

/// Rewrites the copy at `k` if it qualifies; true when it did (the copy is
/// gone, so `k` now names the next statement).
fn rewrite_at(stmts: &mut Block, k: usize, results: &HashSet<VarId>) -> bool {
    let Some((out, index, src)) = row_copy(&stmts[k], results) else {
        return false;
    };
    let Some(alloc) = stmts[..k]
        .iter()
        .position(|s| matches!(s, Stmt::Alloc { var, .. } if var.id == src))
    else {
        return false;
    };
    let Some(free) = sole_free_after(stmts, k, src) else {
        return false;
    };
    // The row's index must be known where the array is allocated, and the
    // output must not be touched in between.
    let mut defined_after = BTreeSet::new();
    let mut defs = HashSet::new();
    block_vars(&stmts[alloc..k], &mut defined_after, &mut defs);
    let index_ready = index.iter().all(|a| match a {
        Atom::Var(v) => !defs.contains(v),
        Atom::Const(_) => true,
    });
    if !index_ready || defined_after.contains(&out) || defs.contains(&out) {
        return false;
    }
    // In between, the array is only read and written element-wise (also by
    // inner loops); after the copy, only freed.
    if stmts[alloc + 1..k].iter().any(|s| escapes(s, src)) {
        return false;
    }
    let Stmt::Alloc { var, shape, .. } = stmts[alloc].clone() else {
        return false;
    };
    // A row whose sizes the body computes is checked against the output's
    // (see `Lowerer::row_shape`) before the copy; writing into the
    // output's row directly needs that check before the first write.
    let checks: Vec<usize> = (alloc + 1..k)
        .filter(|j| match &stmts[*j] {
            Stmt::AssertEq {
                expected, found, ..
            } => shape.contains(expected) || shape.contains(found),
            _ => false,
        })
        .collect();
    let early = checks.iter().all(|j| match &stmts[*j] {
        Stmt::AssertEq {
            expected, found, ..
        } => [expected, found]
            .iter()
            .all(|a| !matches!(a, Atom::Var(v) if defs.contains(v))),
        _ => false,
    });
    if !early {
        return false;
    }
    stmts[alloc] = Stmt::Row {
        var,
        array: out,
        index,
        check: None,
    };
    stmts.remove(free);
    stmts.remove(k);
    for (moved, j) in checks.into_iter().enumerate() {
        let check = stmts.remove(j);
        stmts.insert(alloc + moved, check);
    }
    true
}

/// Whether `stmt` uses `array` other than by reading or writing elements.
/// A copy of a whole array `src` into a row `out[index]`, where `src` is not
/// a result of the function (so it may become a view of that row).
/// The position of `free src` after the copy at `k`, when nothing else
/// after the copy mentions `src` (the copy is its last use).
pub(super) fn sole_free_after(stmts: &[Stmt], k: usize, src: VarId) -> Option<usize> {
    let free = stmts[k + 1..]
        .iter()
        .position(|s| matches!(s, Stmt::Free(a) if *a == src))?
        + k
        + 1;
    let rest: Vec<Stmt> = stmts[k + 1..]
        .iter()
        .enumerate()
        .filter(|(j, _)| j + k + 1 != free)
        .map(|(_, s)| s.clone())
        .collect();
    let (mut later, mut later_defs) = (BTreeSet::new(), HashSet::new());
    block_vars(&rest, &mut later, &mut later_defs);
    (!later.contains(&src)).then_some(free)
}

pub(super) fn row_copy(stmt: &Stmt, results: &HashSet<VarId>) -> Option<(VarId, Vec<Atom>, VarId)> {
    match stmt {
        Stmt::Copy { array, index, src } if !index.is_empty() && !results.contains(src) => {
            Some((*array, index.clone(), *src))
        }
        _ => None,
    }
}

pub(super) fn escapes(stmt: &Stmt, array: VarId) -> bool {
    match stmt {
        Stmt::Read { index, .. } | Stmt::Write { index, .. } | Stmt::Row { index, .. } => {
            mentions(index, array)
        }
        Stmt::Let { .. } | Stmt::AssertEq { .. } | Stmt::Assert { .. } => false,
        // Filled whole from another array: a write of every element.
        Stmt::Copy { index, src, .. } => *src == array || mentions(index, array),
        Stmt::Loop(nest) => {
            nest.body.iter().any(|s| escapes(s, array))
                || nest.carried().any(|c| c.init == Atom::Var(array))
                || nest.scatters.contains(&array)
                || nest.compactions.iter().any(|c| c.outputs.contains(&array))
                || nest.hists.iter().any(|h| h.bins.contains(&array))
        }
        other => {
            let mut uses = BTreeSet::new();
            let mut defs = HashSet::new();
            block_vars(std::slice::from_ref(other), &mut uses, &mut defs);
            uses.contains(&array)
        }
    }
}

fn mentions(atoms: &[Atom], v: VarId) -> bool {
    atoms.contains(&Atom::Var(v))
}
