//! The first iteration of a nest, run ahead of it for the sizes of its rows.
//!
//! A map whose rows have sizes computed per row (`map (\x -> iota x) xs`,
//! `map (\r -> filter p r) rows`, a slice with a variable stride) needs its
//! result allocated before the nest, with sizes that only an iteration
//! knows. The lowering therefore copies the statements those sizes depend
//! on, under fresh names and with the nest's index set to 0, to run before
//! the nest when it has an iteration at all; every iteration then checks
//! that its own row has the same sizes, as the interpreter does. Only row
//! 0 is computed twice, so this costs one row's work. Without rows, the
//! sizes that scalar arithmetic on sizes alone gives are still computed
//! for row 0 (`sizes_alone`), as the interpreter's trial run on zeros
//! finds them; others are 0.

use super::ir::{block_vars, Block, LoopNest, ScalarExp, SeqForm, Stmt};
use super::rename::{NameSource, Renaming};
use crate::core::ir::{Atom, BinOp, Type, Var, VarId};
use crate::types::{Const, ScalarType};
use std::collections::{BTreeSet, HashSet};

/// The statements of `body` (the statements of one iteration of a nest
/// over `index`, built so far) that compute `wanted`, copied for iteration
/// 0, followed by frees of the arrays among them that the iteration owns
/// (`owned`, whose ownership may have moved on to views in `body`); and
/// `wanted` as computed by the copy. `None` when they depend on something
/// the copy cannot have: an array written from outside the body.
pub(super) fn first_iteration(
    body: &[Stmt],
    index: &Var,
    wanted: &[Atom],
    owned: &[VarId],
    carried: &HashSet<VarId>,
    fresh: &mut impl NameSource,
) -> Option<(Block, Vec<Atom>)> {
    let mut uses_of = Vec::with_capacity(body.len());
    let mut defs_of = Vec::with_capacity(body.len());
    for stmt in body {
        let (mut uses, mut defs) = (BTreeSet::new(), HashSet::new());
        block_vars(std::slice::from_ref(stmt), &mut uses, &mut defs);
        uses_of.push(uses);
        defs_of.push(defs);
    }
    let local: HashSet<VarId> = defs_of.iter().flatten().copied().collect();
    let wanted_vars: HashSet<VarId> = wanted
        .iter()
        .filter_map(|a| match a {
            Atom::Var(v) => Some(*v),
            Atom::Const(_) => None,
        })
        .collect();
    let last = (0..body.len())
        .rev()
        .find(|k| defs_of[*k].iter().any(|v| wanted_vars.contains(v)))
        .unwrap_or(0);
    // The statements `wanted` depends on; with `seeded`, also everything
    // that can fail before the last size is known, so that row 0 stops
    // with the error the nest would stop with first (what writes outside,
    // as a scatter would, is left to the nest).
    let slice = |seeded: bool| -> Option<(Vec<bool>, HashSet<VarId>)> {
        let mut needed = wanted_vars.clone();
        let mut keep = vec![false; body.len()];
        for (k, stmt) in body.iter().enumerate().rev() {
            let mut written = HashSet::new();
            writes(std::slice::from_ref(stmt), &mut written);
            let outside = written.iter().any(|a| !local.contains(a));
            let relevant = defs_of[k]
                .iter()
                .chain(&written)
                .any(|v| needed.contains(v));
            if relevant && outside {
                return None;
            }
            let fails_first = seeded
                && k < last
                && !outside
                && !matches!(stmt, Stmt::Alloc { .. })
                && super::par::can_fail(stmt);
            if relevant || fails_first {
                keep[k] = true;
                needed.extend(uses_of[k].iter().copied());
            }
        }
        Some((keep, needed))
    };
    // A check on a value the nest carries (a scan's) cannot run ahead.
    let (mut keep, _) = match slice(true) {
        Some((keep, needed)) if !needed.iter().any(|v| carried.contains(v)) => (keep, needed),
        _ => slice(false)?,
    };
    // What the iteration frees before it is done with the row, the copy
    // frees as well.
    let kept_defs: HashSet<VarId> = (0..body.len())
        .filter(|k| keep[*k])
        .flat_map(|k| defs_of[k].iter().copied())
        .collect();
    for (k, stmt) in body.iter().enumerate() {
        if matches!(stmt, Stmt::Free(a) if kept_defs.contains(a)) {
            keep[k] = true;
        }
    }
    let mut env = Renaming::default();
    let zero = fresh.fresh_var(&index.name, index.ty);
    env.map.insert(index.id, zero.id);
    let mut block = vec![Stmt::Let {
        var: zero,
        exp: ScalarExp::Atom(Atom::Const(Const::I64(0))),
        loc: Default::default(),
    }];
    for (stmt, _) in body.iter().zip(&keep).filter(|(_, k)| **k) {
        block.push(env.stmt(fresh, stmt));
    }
    // Frees of what the copy owns: for each array the iteration owns, the
    // last array of its chain of ownership (a view at offset 0, an update
    // in place) that the copy made.
    for o in owned {
        let mut current = *o;
        loop {
            if kept_defs.contains(&current) {
                block.push(Stmt::Free(env.id(current)));
                break;
            }
            let previous = body.iter().find_map(|s| match s {
                Stmt::View {
                    var,
                    array,
                    offset: Atom::Const(Const::I64(0)),
                    ..
                } if var.id == current => Some(*array),
                Stmt::InPlace { var, array } if var.id == current => Some(*array),
                _ => None,
            });
            match previous {
                Some(p) => current = p,
                None => break,
            }
        }
    }
    Some((block, env.atoms(wanted)))
}

/// The arrays `stmts` write, overwrite in place or consume, at any depth.
pub(super) fn writes(stmts: &[Stmt], out: &mut HashSet<VarId>) {
    for stmt in stmts {
        match stmt {
            Stmt::Write { array, .. } | Stmt::Copy { array, .. } | Stmt::InPlace { array, .. } => {
                out.insert(*array);
            }
            Stmt::If {
                then_block,
                else_block,
                ..
            } => {
                writes(then_block, out);
                writes(else_block, out);
            }
            Stmt::SeqLoop(lp) => {
                if let SeqForm::While { cond, .. } = &lp.form {
                    writes(cond, out);
                }
                writes(&lp.body, out);
            }
            Stmt::Loop(nest) => nest_writes(nest, out),
            _ => {}
        }
    }
}

fn nest_writes(nest: &LoopNest, out: &mut HashSet<VarId>) {
    out.extend(nest.scatters.iter().copied());
    out.extend(nest.hists.iter().flat_map(|h| h.bins.iter().copied()));
    writes(&nest.body, out);
}

/// `wanted`, as `block` (a first iteration's copy, see `first_iteration`)
/// computes it, by scalar arithmetic that cannot fail and choices between
/// branches alone, copied under fresh names: what a nest over no rows can
/// still run for its rows' sizes (`tabulate m` in one branch and a row of
/// `g` in the other), as the interpreter's trial run on rows of zeros does.
/// `None` when a size needs anything else (a read, an allocation, a
/// loop), or when row 0 makes an assertion: the sizes after it may take it
/// to hold (`r[::k]` divides by `k` only when `k` is not 0), while the
/// trial ignores it and computes sizes its own way.
pub(super) fn sizes_alone(
    block: &[Stmt],
    wanted: &[Atom],
    fresh: &mut impl NameSource,
) -> Option<(Block, Vec<Atom>)> {
    if asserts(block) {
        return None;
    }
    let sliced = scalar_slice(block, wanted, fresh)?;
    let mut env = Renaming::default();
    let copy = env.block(fresh, &sliced);
    Some((copy, env.atoms(wanted)))
}

/// The statements of `block` that compute `wanted`, an `if` cut down to
/// the results wanted of it; `None` where one is not scalar arithmetic or
/// such an `if`. A division gives 0 by zero, as in the trial run.
fn scalar_slice(block: &[Stmt], wanted: &[Atom], fresh: &mut impl NameSource) -> Option<Block> {
    let mut needed: HashSet<VarId> = wanted
        .iter()
        .filter_map(|a| match a {
            Atom::Var(v) => Some(*v),
            Atom::Const(_) => None,
        })
        .collect();
    let mut kept = Vec::new();
    for stmt in block.iter().rev() {
        match stmt {
            Stmt::Let { var, exp, loc } if needed.contains(&var.id) => {
                let mut uses = BTreeSet::new();
                block_vars(std::slice::from_ref(stmt), &mut uses, &mut HashSet::new());
                needed.extend(uses);
                match exp {
                    ScalarExp::BinOp(_, _, divisor) if exp.may_fail() => {
                        let zero = Atom::Const(Const::zero(var.ty.elem()));
                        let nonzero = fresh.fresh_var("nonzero", Type::Scalar(ScalarType::Bool));
                        let quotient = fresh.fresh_var(&var.name, var.ty);
                        kept.push(Stmt::If {
                            results: vec![var.clone()],
                            cond: Atom::Var(nonzero.id),
                            then_block: vec![Stmt::Let {
                                var: quotient.clone(),
                                exp: exp.clone(),
                                loc: *loc,
                            }],
                            then_results: vec![Atom::Var(quotient.id)],
                            else_block: Vec::new(),
                            else_results: vec![zero],
                        });
                        kept.push(Stmt::Let {
                            var: nonzero,
                            exp: ScalarExp::BinOp(BinOp::Neq, *divisor, zero),
                            loc: *loc,
                        });
                    }
                    _ => kept.push(stmt.clone()),
                }
            }
            Stmt::If {
                results,
                cond,
                then_block,
                then_results,
                else_block,
                else_results,
            } if results.iter().any(|r| needed.contains(&r.id)) => {
                let positions: Vec<usize> = (0..results.len())
                    .filter(|k| needed.contains(&results[*k].id))
                    .collect();
                let pick =
                    |atoms: &[Atom]| -> Vec<Atom> { positions.iter().map(|k| atoms[*k]).collect() };
                let (then_results, else_results) = (pick(then_results), pick(else_results));
                let then_block = scalar_slice(then_block, &then_results, fresh)?;
                let else_block = scalar_slice(else_block, &else_results, fresh)?;
                let cut = Stmt::If {
                    results: positions.iter().map(|k| results[*k].clone()).collect(),
                    cond: *cond,
                    then_block,
                    then_results,
                    else_block,
                    else_results,
                };
                let mut uses = BTreeSet::new();
                block_vars(std::slice::from_ref(&cut), &mut uses, &mut HashSet::new());
                needed.extend(uses);
                kept.push(cut);
            }
            _ => {
                let mut defs = HashSet::new();
                block_vars(std::slice::from_ref(stmt), &mut BTreeSet::new(), &mut defs);
                if defs.iter().any(|d| needed.contains(d)) {
                    return None;
                }
            }
        }
    }
    kept.reverse();
    Some(kept)
}

/// Whether `stmts` assert something at any depth: a condition, equal
/// sizes, a slice's bounds.
fn asserts(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|stmt| match stmt {
        Stmt::Assert { .. } | Stmt::AssertEq { .. } | Stmt::SliceCheck { .. } => true,
        Stmt::If {
            then_block,
            else_block,
            ..
        } => asserts(then_block) || asserts(else_block),
        Stmt::SeqLoop(lp) => {
            let cond = match &lp.form {
                SeqForm::While { cond, .. } => asserts(cond),
                SeqForm::For { .. } => false,
            };
            cond || asserts(&lp.body)
        }
        Stmt::Loop(nest) => asserts(&nest.body),
        _ => false,
    })
}
