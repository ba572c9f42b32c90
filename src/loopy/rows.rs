//! Rows written in place (a `loopy::ir::Function` in, the same function
//! out). A function that returns a row, like the inner `map` of
//! `map (\row -> map f row) m`, is lowered as an array of its own that the
//! outer loop then copies into its output's row and frees. When nothing
//! else uses that array, it becomes a view of the output's row instead: the
//! inner loop writes there directly, and the allocation, the copy and the
//! free go.

use super::ir::{block_vars, Block, Function, SeqForm, Stmt};
use crate::core::ir::{Atom, VarId};
use std::collections::{BTreeSet, HashSet};

pub fn write_rows_in_place(f: &mut Function) {
    let results: HashSet<VarId> = f
        .results
        .iter()
        .filter_map(|a| match a {
            Atom::Var(v) => Some(*v),
            Atom::Const(_) => None,
        })
        .collect();
    block(&mut f.body, &results);
}

fn block(stmts: &mut Block, results: &HashSet<VarId>) {
    for stmt in stmts.iter_mut() {
        match stmt {
            Stmt::Loop(nest) => block(&mut nest.body, results),
            Stmt::If {
                then_block,
                else_block,
                ..
            } => {
                block(then_block, results);
                block(else_block, results);
            }
            Stmt::SeqLoop(lp) => {
                block(&mut lp.body, results);
                if let SeqForm::While { cond, .. } = &mut lp.form {
                    block(cond, results);
                }
            }
            _ => {}
        }
    }
    let mut k = 0;
    while k < stmts.len() {
        if !rewrite_at(stmts, k, results) {
            k += 1;
        }
    }
}

/// Rewrites the copy at `k` if it qualifies; true when it did (the copy is
/// gone, so `k` now names the next statement).
fn rewrite_at(stmts: &mut Block, k: usize, results: &HashSet<VarId>) -> bool {
    let Stmt::Copy {
        array: out,
        index,
        src,
    } = &stmts[k]
    else {
        return false;
    };
    let (out, index, src) = (*out, index.clone(), *src);
    if index.is_empty() || results.contains(&src) {
        return false;
    }
    let Some(alloc) = stmts[..k]
        .iter()
        .position(|s| matches!(s, Stmt::Alloc { var, .. } if var.id == src))
    else {
        return false;
    };
    let Some(free) = stmts[k + 1..]
        .iter()
        .position(|s| matches!(s, Stmt::Free(a) if *a == src))
        .map(|p| p + k + 1)
    else {
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
    let mut later = BTreeSet::new();
    let mut later_defs = HashSet::new();
    let rest: Vec<Stmt> = stmts[k + 1..]
        .iter()
        .enumerate()
        .filter(|(j, _)| j + k + 1 != free)
        .map(|(_, s)| s.clone())
        .collect();
    block_vars(&rest, &mut later, &mut later_defs);
    if later.contains(&src) {
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
fn escapes(stmt: &Stmt, array: VarId) -> bool {
    match stmt {
        Stmt::Read { index, .. } | Stmt::Write { index, .. } | Stmt::Row { index, .. } => {
            mentions(index, array)
        }
        Stmt::Let { .. } | Stmt::AssertEq { .. } | Stmt::Assert { .. } => false,
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
