//! Updates in place: a pass over lowered functions that turns a fresh copy
//! of a dead array into a reuse of its memory.
//!
//! The lowering makes every `a with [i] = v`, every `scatter`/`hist`
//! destination and every varying loop's initial value a fresh copy: an
//! `Alloc` of `new` immediately followed by `Copy` of all of `old` into it.
//! When `old` owns its memory (the same block frees it later: it is not a
//! parameter, a view or an array of an enclosing block) and neither `old`
//! nor anything sharing its memory is used after the copy (in the rest of
//! the block, including nested blocks, or in the block's results), the pair
//! becomes `InPlace`: `new` takes the memory over, and the `Free` of `old`
//! goes (the one of `new`, or its escape, stays as it was).
//!
//! A loop-carried array updated once per iteration is the important case:
//! each iteration frees the old parameter value, so the update reuses it
//! and a loop of `n` updates costs O(n) instead of O(n²).

use super::ir::*;
use crate::core::ir::{Atom, VarId};
use std::collections::{BTreeSet, HashMap, HashSet};

/// Rewrites dead copies in `f`; see the module comment.
pub fn reuse_dead_copies(f: &mut Function) {
    let mut edges = HashMap::new();
    alias_edges(&f.body, &mut edges);
    let mut pass = Pass { edges };
    pass.block(&mut f.body, &f.results);
}

struct Pass {
    /// Variable to the variables that may share its memory because they are
    /// defined from it (views, rows, branch and loop results, carried
    /// values).
    edges: HashMap<VarId, Vec<VarId>>,
}

impl Pass {
    fn sharing(&self, v: VarId) -> HashSet<VarId> {
        sharing(&self.edges, v)
    }

    /// Processes `block`, whose results (used after its last statement)
    /// are `trailing`.
    fn block(&mut self, block: &mut Block, trailing: &[Atom]) {
        let mut k = 0;
        while k < block.len() {
            self.nested(&mut block[k]);
            if let Some((new, old)) = copy_at(block, k) {
                if let Some(free) = self.dead_after(block, k + 1, old, trailing) {
                    let Stmt::Alloc { var, .. } = block.remove(k) else {
                        return;
                    };
                    block[k] = Stmt::InPlace { var, array: old };
                    // `free` was past the removed `Alloc`.
                    block.remove(free - 1);
                    // Whatever shares `new` now shares `old`'s memory.
                    self.edges.entry(old).or_default().push(new);
                }
            }
            k += 1;
        }
    }

    /// The position of the `Free` of `old` after `copy` in `block`, when
    /// that is the only use of `old` (or of anything sharing its memory)
    /// after `copy` and `old` is not among `trailing`.
    fn dead_after(
        &self,
        block: &Block,
        copy: usize,
        old: VarId,
        trailing: &[Atom],
    ) -> Option<usize> {
        let free = (copy + 1..block.len()).find(|&j| block[j] == Stmt::Free(old))?;
        let sharing = self.sharing(old);
        let mut uses = BTreeSet::new();
        let mut defs = HashSet::new();
        for (j, stmt) in block.iter().enumerate().skip(copy + 1) {
            if j != free {
                block_vars(std::slice::from_ref(stmt), &mut uses, &mut defs);
            }
        }
        uses.extend(trailing.iter().filter_map(|a| match a {
            Atom::Var(v) => Some(*v),
            Atom::Const(_) => None,
        }));
        if uses.iter().any(|v| sharing.contains(v)) {
            None
        } else {
            Some(free)
        }
    }

    /// Processes the blocks nested in `stmt`, each with its results.
    fn nested(&mut self, stmt: &mut Stmt) {
        match stmt {
            Stmt::If {
                then_block,
                then_results,
                else_block,
                else_results,
                ..
            } => {
                self.block(then_block, then_results);
                self.block(else_block, else_results);
            }
            Stmt::SeqLoop(lp) => {
                if let SeqForm::While { cond, result } = &mut lp.form {
                    let result = [*result];
                    self.block(cond, &result);
                }
                self.block(&mut lp.body, &lp.next);
            }
            Stmt::Loop(nest) => {
                let mut trailing: Vec<Atom> = nest.carried().map(|c| c.next).collect();
                trailing.extend(nest.compactions.iter().map(|c| c.flag));
                self.block(&mut nest.body, &trailing);
                let ops = nest.reductions.iter_mut().map(|r| &mut r.op);
                let ops = ops
                    .chain(nest.scans.iter_mut().map(|s| &mut s.op))
                    .chain(nest.hists.iter_mut().map(|h| &mut h.op));
                for op in ops {
                    self.block(&mut op.body, &op.results);
                }
            }
            _ => {}
        }
    }
}

/// `v` and every variable that may share its memory through `edges`.
pub(super) fn sharing(edges: &HashMap<VarId, Vec<VarId>>, v: VarId) -> HashSet<VarId> {
    let mut seen = HashSet::from([v]);
    let mut todo = vec![v];
    while let Some(x) = todo.pop() {
        for y in edges.get(&x).into_iter().flatten() {
            if seen.insert(*y) {
                todo.push(*y);
            }
        }
    }
    seen
}

/// `Some((new, old))` when `block[k]` allocates `new` and `block[k + 1]`
/// copies all of another array `old` into it.
pub(super) fn copy_at(block: &Block, k: usize) -> Option<(VarId, VarId)> {
    match (block.get(k)?, block.get(k + 1)?) {
        (Stmt::Alloc { var, .. }, Stmt::Copy { array, index, src })
            if *array == var.id && index.is_empty() && *src != var.id =>
        {
            Some((var.id, *src))
        }
        _ => None,
    }
}

/// Records, for every definition in `block` that may share memory with an
/// earlier array, an edge from that array to the new variable.
pub(super) fn alias_edges(block: &Block, edges: &mut HashMap<VarId, Vec<VarId>>) {
    let mut edge = |from: &Atom, to: VarId| {
        if let Atom::Var(v) = from {
            edges.entry(*v).or_default().push(to);
        }
    };
    let mut nested = Vec::new();
    for stmt in block {
        match stmt {
            Stmt::Row { var, array, .. } | Stmt::View { var, array, .. } => {
                edge(&Atom::Var(*array), var.id)
            }
            Stmt::InPlace { var, array } => edge(&Atom::Var(*array), var.id),
            Stmt::If {
                results,
                then_block,
                then_results,
                else_block,
                else_results,
                ..
            } => {
                for (j, r) in results.iter().enumerate() {
                    for res in [then_results, else_results] {
                        if let Some(a) = res.get(j) {
                            edge(a, r.id);
                        }
                    }
                }
                nested.push(then_block);
                nested.push(else_block);
            }
            Stmt::SeqLoop(lp) => {
                for ((p, next), r) in lp.params.iter().zip(&lp.next).zip(&lp.results) {
                    edge(&p.init, p.var.id);
                    edge(next, p.var.id);
                    edge(&Atom::Var(p.var.id), r.var.id);
                }
                if let SeqForm::While { cond, .. } = &lp.form {
                    nested.push(cond);
                }
                nested.push(&lp.body);
            }
            Stmt::Loop(nest) => {
                for c in nest.carried() {
                    edge(&c.init, c.var.id);
                    edge(&c.next, c.var.id);
                }
                for r in &nest.reductions {
                    for (c, res) in r.carried.iter().zip(&r.results) {
                        edge(&Atom::Var(c.var.id), res.id);
                    }
                }
                nested.push(&nest.body);
                let ops = nest.reductions.iter().map(|r| &r.op);
                let ops = ops
                    .chain(nest.scans.iter().map(|s| &s.op))
                    .chain(nest.hists.iter().map(|h| &h.op));
                nested.extend(ops.map(|op| &op.body));
            }
            _ => {}
        }
    }
    for b in nested {
        alias_edges(b, edges);
    }
}
