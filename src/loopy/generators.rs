//! Removes `iota`, `replicate`, `reverse`, `rotate`, `transpose`, slice-copy and `++` arrays
//! that nothing reads (a `loopy::ir::Function` in, the same function out).
//! The lowering computes the element of such an array wherever a loop reads
//! it at its own index (for a permutation, by reading its source at the
//! composed index), so once every reader is fused that way the array, the
//! loop that fills it and its `Free` are dead: these fuse into their readers.

use super::ir::{block_vars, Block, Function, LoopNest, Origin, SeqForm, Stmt};
use crate::core::ir::{AssertReport, Atom, VarId};
use std::collections::{BTreeSet, HashSet};

pub fn drop_unread(f: &mut Function) {
    let mut used = BTreeSet::new();
    block_vars(&f.body, &mut used, &mut HashSet::new());
    used.extend(f.results.iter().filter_map(|a| match a {
        Atom::Var(v) => Some(*v),
        Atom::Const(_) => None,
    }));
    f.body = drop_dead_rows(&f.body, &used);
    let mut generated = HashSet::new();
    collect_generated(&f.body, &mut generated);
    if generated.is_empty() {
        return;
    }
    // Uses of everything apart from the generators' own statements.
    let rest = strip(&f.body, &generated, &HashSet::new());
    let mut uses = BTreeSet::new();
    let mut defs = HashSet::new();
    block_vars(&rest, &mut uses, &mut defs);
    uses.extend(f.results.iter().filter_map(|a| match a {
        Atom::Var(v) => Some(*v),
        Atom::Const(_) => None,
    }));
    let dead: HashSet<VarId> = generated
        .difference(&uses.into_iter().collect())
        .copied()
        .collect();
    if !dead.is_empty() {
        f.body = strip(&f.body, &dead, &dead);
    }
}

/// The array a generator loop (iota, replicate, a permuted copy, a part of
/// a concatenation) fills.
fn filled_by(nest: &LoopNest) -> Option<VarId> {
    if !matches!(
        nest.origin,
        Origin::Iota
            | Origin::Replicate
            | Origin::Reverse
            | Origin::Rotate
            | Origin::Slice
            | Origin::Concat
            | Origin::Transpose
    ) {
        return None;
    }
    nest.body.iter().find_map(|s| match s {
        Stmt::Write { array, .. } | Stmt::Copy { array, .. } => Some(*array),
        // A transposition's or a matrix slice's copy is two loops deep.
        Stmt::Loop(inner) if matches!(nest.origin, Origin::Transpose | Origin::Slice) => {
            filled_by(inner)
        }
        _ => None,
    })
}

/// `block` without the unchecked row views nothing uses: a map over the
/// rows of a transposed array reads its columns from the source (see
/// `loopy::lower`'s `Generated::Column`), leaving the row of the copy unread.
fn drop_dead_rows(block: &Block, used: &BTreeSet<VarId>) -> Block {
    block
        .iter()
        .filter(|s| !matches!(s, Stmt::Row { var, check: None, .. } if !used.contains(&var.id)))
        .map(|s| s.map_inner_blocks(|inner| drop_dead_rows(inner, used)))
        .collect()
}

fn collect_generated(block: &Block, out: &mut HashSet<VarId>) {
    for stmt in block {
        match stmt {
            Stmt::Loop(nest) => match filled_by(nest) {
                Some(array) => {
                    out.insert(array);
                }
                None => collect_generated(&nest.body, out),
            },
            Stmt::If {
                then_block,
                else_block,
                ..
            } => {
                collect_generated(then_block, out);
                collect_generated(else_block, out);
            }
            Stmt::SeqLoop(lp) => {
                collect_generated(&lp.body, out);
                if let SeqForm::While { cond, .. } = &lp.form {
                    collect_generated(cond, out);
                }
            }
            _ => {}
        }
    }
}

/// `block` without the fill loops and frees of `generated` arrays, and
/// without the allocations of the `dead` ones.
fn strip(block: &Block, generated: &HashSet<VarId>, dead: &HashSet<VarId>) -> Block {
    let mut out = Vec::new();
    for stmt in block {
        let kept = match stmt {
            Stmt::Loop(nest) => match filled_by(nest) {
                Some(array) if generated.contains(&array) => {
                    if dead.is_empty() || dead.contains(&array) {
                        // Its width and value still count as uses.
                        if dead.is_empty() {
                            out.push(Stmt::Loop(LoopNest {
                                body: nest.body.iter().map(|s| without_target(s, array)).collect(),
                                ..nest.clone()
                            }));
                        }
                        continue;
                    }
                    stmt.clone()
                }
                _ => stmt.map_inner_blocks(|inner| strip(inner, generated, dead)),
            },
            Stmt::Free(array) if generated.contains(array) => {
                if dead.is_empty() || dead.contains(array) {
                    continue;
                }
                stmt.clone()
            }
            Stmt::Alloc { var, .. } if dead.contains(&var.id) => continue,
            Stmt::If { .. } | Stmt::SeqLoop(_) => {
                stmt.map_inner_blocks(|inner| strip(inner, generated, dead))
            }
            _ => stmt.clone(),
        };
        out.push(kept);
    }
    out
}

/// For the use analysis only: a fill loop's store into `array` becomes a
/// statement that uses what the store reads and not `array` (a replicated
/// row is still read).
fn without_target(stmt: &Stmt, array: VarId) -> Stmt {
    match stmt {
        Stmt::Write {
            array: a, value, ..
        } if *a == array => Stmt::Assert {
            cond: *value,
            report: AssertReport::Plain,
            loc: Default::default(),
        },
        Stmt::Copy { array: a, src, .. } if *a == array => Stmt::Free(*src),
        Stmt::Loop(inner) => Stmt::Loop(LoopNest {
            body: inner
                .body
                .iter()
                .map(|s| without_target(s, array))
                .collect(),
            ..inner.clone()
        }),
        other => other.clone(),
    }
}
