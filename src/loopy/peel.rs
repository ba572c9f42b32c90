//! The first iteration of a nest, run ahead of it for the sizes of its rows.
//!
//! A map whose rows have sizes computed per row (`map (\x -> iota x) xs`,
//! `map (\r -> filter p r) rows`, a slice with a variable stride) needs its
//! result allocated before the nest, with sizes that only an iteration
//! knows. The lowering therefore copies the statements those sizes depend
//! on, under fresh names and with the nest's index set to 0, to run before
//! the nest when it has an iteration at all; every iteration then checks
//! that its own row has the same sizes, as the interpreter does. Only row
//! 0 is computed twice, so this costs one row's work.

use super::ir::{block_vars, Block, LoopNest, ScalarExp, SeqForm, Stmt};
use super::rename::{NameSource, Renaming};
use crate::core::ir::{Atom, Var, VarId};
use crate::types::Const;
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
