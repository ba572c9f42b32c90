//! Loops that only read their initial array borrow it. In: a lowered
//! function (after `inplace` and `donate`); out: the same function where a
//! `for` loop's array parameter starts as the array it was copied from.
//!
//! The lowering gives a varying loop parameter a fresh copy of its initial
//! value, since each iteration frees the parameter (`SeqLoop`). When the
//! initial value is an array that stays live or is not the function's own
//! (an entry's argument: the stencil's `loop g = g0`), `inplace` keeps the
//! copy, a whole pass over the array before the first iteration. When the
//! body never writes the parameter (nor anything sharing its memory) and
//! frees it once, at its end, the copy goes:
//!
//! ```text
//! alloc c; copy c[] = a; ...; seqloop (x = c) for i < n do ...; free x
//! ```
//!
//! becomes
//!
//! ```text
//! ...; let go = lt 0 n; let c' = if go then a else { alloc c; copy c[] = a; c }
//! seqloop (x = c') for i < n do ...; if i != 0 then free x
//! ```
//!
//! The first iteration reads `a` and leaves it to its owner; the others
//! free the array the previous one made. A loop that runs no iteration
//! returns its initial value, so it still gets its own copy. Only the host
//! side's blocks are rewritten (not a nest's body: per-thread scratch is
//! `loopy::scratch`'s), and only where host memory is device memory.

use super::inplace::{alias_edges, copy_at, sharing};
use super::ir::{block_vars, Block, Function, ScalarExp, SeqForm, Stmt};
use super::rename::{fresh_above, Fresh, NameSource};
use crate::core::ir::{Atom, BinOp, SrcLoc, Type, Var, VarId};
use crate::types::{Const, ScalarType};
use std::collections::{BTreeSet, HashMap, HashSet};

/// Rewrites `f` as the module comment says.
pub fn borrow_loop_inits(f: &mut Function) {
    let mut edges = HashMap::new();
    alias_edges(&f.body, &mut edges);
    let mut fresh = fresh_above(f);
    block(&mut f.body, &edges, &mut fresh);
}

fn block(b: &mut Block, edges: &HashMap<VarId, Vec<VarId>>, fresh: &mut Fresh) {
    let mut k = 0;
    while k < b.len() {
        match &mut b[k] {
            Stmt::If {
                then_block,
                else_block,
                ..
            } => {
                block(then_block, edges, fresh);
                block(else_block, edges, fresh);
            }
            Stmt::SeqLoop(lp) => block(&mut lp.body, edges, fresh),
            _ => {}
        }
        if let Some((new, old)) = copy_at(b, k) {
            if let Some((j, p)) = borrowing_loop(b, k, new, old, edges) {
                rewrite(b, k, j, p, fresh);
                // The `Alloc` and `Copy` left and two statements came
                // before the loop, which is still at `j`: its body next.
                k = j;
                continue;
            }
        }
        k += 1;
    }
}

/// The position of the loop whose parameter `p` starts as `new` (the copy
/// of `old` at `k`), when the rewrite is sound: nothing between the copy
/// and the loop uses either array, the loop is a `for` loop whose body
/// frees the parameter once, last among its top-level statements' uses,
/// and writes nothing that shares the memory of the parameter or of `old`.
fn borrowing_loop(
    b: &Block,
    k: usize,
    new: VarId,
    old: VarId,
    edges: &HashMap<VarId, Vec<VarId>>,
) -> Option<(usize, usize)> {
    let j = (k + 2..b.len()).find(|&j| uses(&b[j..=j]).contains(&new))?;
    let Stmt::SeqLoop(lp) = &b[j] else {
        return None;
    };
    let SeqForm::For { .. } = lp.form else {
        return None;
    };
    let old_shared = sharing(edges, old);
    if uses(&b[k + 2..j]).iter().any(|v| old_shared.contains(v)) {
        return None;
    }
    let inits = lp.params.iter().filter(|p| p.init == Atom::Var(new));
    if inits.count() != 1 || uses(&b[j + 1..]).contains(&new) {
        return None;
    }
    let p = lp.params.iter().position(|p| p.init == Atom::Var(new))?;
    let x = lp.params[p].var.id;
    let frees: Vec<usize> = (0..lp.body.len())
        .filter(|&q| lp.body[q] == Stmt::Free(x))
        .collect();
    let [free] = frees[..] else { return None };
    let mut shared = sharing(edges, x);
    if uses(&lp.body[free + 1..])
        .iter()
        .any(|v| shared.contains(v))
    {
        return None;
    }
    if lp
        .next
        .iter()
        .any(|a| matches!(a, Atom::Var(v) if shared.contains(v)))
    {
        return None;
    }
    shared.extend(old_shared);
    let mut touched = HashSet::new();
    for (q, stmt) in lp.body.iter().enumerate() {
        if q != free {
            writes(std::slice::from_ref(stmt), &mut touched);
        }
    }
    if touched.iter().any(|v| shared.contains(v)) {
        return None;
    }
    Some((j, p))
}

/// Every variable `stmts` use, at any depth.
fn uses(stmts: &[Stmt]) -> BTreeSet<VarId> {
    let mut uses = BTreeSet::new();
    block_vars(stmts, &mut uses, &mut HashSet::new());
    uses
}

/// The arrays `stmts` write, free, take over or accumulate into, at any
/// depth (a nest's carried arrays too: they may be updated in place).
fn writes(stmts: &[Stmt], out: &mut HashSet<VarId>) {
    for stmt in stmts {
        match stmt {
            Stmt::Write { array, .. } | Stmt::Copy { array, .. } => {
                out.insert(*array);
            }
            Stmt::InPlace { array, .. } | Stmt::Free(array) => {
                out.insert(*array);
            }
            Stmt::Loop(nest) => {
                out.extend(nest.scatters.iter().copied());
                for h in &nest.hists {
                    out.extend(h.bins.iter().copied());
                }
                for c in &nest.compactions {
                    out.extend(c.outputs.iter().copied());
                }
                for c in nest.carried() {
                    if let Atom::Var(v) = c.init {
                        out.insert(v);
                    }
                }
            }
            _ => {}
        }
        for inner in stmt.inner_blocks() {
            writes(inner, out);
        }
    }
}

/// The rewrite of the module comment: the `Alloc` and `Copy` at `k` move
/// into a branch just before the loop at `j`, whose parameter `p` takes
/// the branch's result, and the body's `Free` of it skips iteration 0.
fn rewrite(b: &mut Block, k: usize, j: usize, p: usize, fresh: &mut Fresh) {
    let copy = b.remove(k + 1);
    let alloc = b.remove(k);
    let (Stmt::Alloc { var: new, .. }, Stmt::Copy { src: old, .. }) = (&alloc, &copy) else {
        return;
    };
    let (new, old) = (new.clone(), *old);
    let j = j - 2;
    let Stmt::SeqLoop(lp) = &mut b[j] else {
        return;
    };
    let SeqForm::For { index, bound } = &lp.form else {
        return;
    };
    let t = index.ty.elem();
    let zero = Atom::Const(Const::zero(t));
    let bool_ty = Type::Scalar(ScalarType::Bool);
    let go = fresh.fresh_var("runs", bool_ty);
    let later = fresh.fresh_var("later", bool_ty);
    let init = fresh.fresh_var(&format!("{}_borrowed", new.name), new.ty);
    let x = lp.params[p].var.id;
    let test = |var: &Var, op, a, b| Stmt::Let {
        var: var.clone(),
        exp: ScalarExp::BinOp(op, a, b),
        loc: SrcLoc::default(),
    };
    let before = [
        test(&go, BinOp::Lt, zero, *bound),
        Stmt::If {
            results: vec![init.clone()],
            cond: Atom::Var(go.id),
            then_block: Vec::new(),
            then_results: vec![Atom::Var(old)],
            else_block: vec![alloc.clone(), copy.clone()],
            else_results: vec![Atom::Var(new.id)],
        },
    ];
    let guard = [
        test(&later, BinOp::Neq, Atom::Var(index.id), zero),
        Stmt::If {
            results: Vec::new(),
            cond: Atom::Var(later.id),
            then_block: vec![Stmt::Free(x)],
            then_results: Vec::new(),
            else_block: Vec::new(),
            else_results: Vec::new(),
        },
    ];
    lp.params[p].init = Atom::Var(init.id);
    if let Some(q) = lp.body.iter().position(|s| *s == Stmt::Free(x)) {
        lp.body.splice(q..=q, guard);
    }
    b.splice(j..j, before);
}
