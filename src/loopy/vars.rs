//! Variable traversals of the loop-nest IR (`loopy::ir`): which variables a
//! block or nest uses and defines, and every binder at any depth. In: a
//! block, nest or operator; out: the sets, or a callback per binder.

use super::ir::{Block, LoopNest, Operator, ScalarExp, SeqForm, Stmt};
use crate::core::ir::{Atom, Var, VarId};

/// The variables of a nest apart from `width` and the carried `init`s.
pub(super) fn nest_inner_vars(
    nest: &LoopNest,
    uses: &mut std::collections::BTreeSet<VarId>,
    defs: &mut std::collections::HashSet<VarId>,
) {
    defs.insert(nest.index.id);
    for c in nest.carried() {
        defs.insert(c.var.id);
        atom_use(&c.next, uses);
    }
    for r in &nest.reductions {
        defs.extend(r.results.iter().map(|v| v.id));
    }
    for c in &nest.compactions {
        defs.insert(c.result.id);
        atom_use(&c.flag, uses);
        uses.extend(c.outputs.iter().copied());
    }
    for h in &nest.hists {
        uses.extend(h.bins.iter().copied());
        h.neutral.iter().for_each(|a| atom_use(a, uses));
    }
    uses.extend(nest.scatters.iter().copied());
    block_vars(&nest.body, uses, defs);
    // The operators run in the combine phase of a parallel backend, so their
    // free variables belong in the environment too.
    let ops = nest.reductions.iter().map(|r| &r.op);
    let ops = ops
        .chain(nest.scans.iter().map(|s| &s.op))
        .chain(nest.hists.iter().map(|h| &h.op));
    for op in ops {
        defs.extend(op.params.iter().map(|p| p.id));
        block_vars(&op.body, uses, defs);
        op.results.iter().for_each(|a| atom_use(a, uses));
    }
}

fn atom_use(a: &Atom, uses: &mut std::collections::BTreeSet<VarId>) {
    if let Atom::Var(v) = a {
        uses.insert(*v);
    }
}

/// Collects every variable used and every variable defined in `block`.
pub(crate) fn block_vars(
    block: &[Stmt],
    uses: &mut std::collections::BTreeSet<VarId>,
    defs: &mut std::collections::HashSet<VarId>,
) {
    for stmt in block {
        match stmt {
            Stmt::Let { var, exp, .. } => {
                match exp {
                    ScalarExp::Atom(a) | ScalarExp::UnOp(_, a) | ScalarExp::Convert(_, a) => {
                        atom_use(a, uses)
                    }
                    ScalarExp::BinOp(_, a, b) => {
                        atom_use(a, uses);
                        atom_use(b, uses);
                    }
                    ScalarExp::Fma(a, b, c) => {
                        atom_use(a, uses);
                        atom_use(b, uses);
                        atom_use(c, uses);
                    }
                }
                defs.insert(var.id);
            }
            Stmt::Alloc { var, shape, .. } => {
                shape.iter().for_each(|a| atom_use(a, uses));
                defs.insert(var.id);
            }
            Stmt::Read {
                var, array, index, ..
            }
            | Stmt::Row {
                var, array, index, ..
            } => {
                uses.insert(*array);
                index.iter().for_each(|a| atom_use(a, uses));
                defs.insert(var.id);
            }
            Stmt::Write {
                array,
                index,
                value,
            } => {
                uses.insert(*array);
                index.iter().for_each(|a| atom_use(a, uses));
                atom_use(value, uses);
            }
            Stmt::Copy { array, index, src } => {
                uses.insert(*array);
                uses.insert(*src);
                index.iter().for_each(|a| atom_use(a, uses));
            }
            Stmt::If {
                results,
                cond,
                then_block,
                then_results,
                else_block,
                else_results,
            } => {
                atom_use(cond, uses);
                block_vars(then_block, uses, defs);
                block_vars(else_block, uses, defs);
                then_results
                    .iter()
                    .chain(else_results)
                    .for_each(|a| atom_use(a, uses));
                defs.extend(results.iter().map(|v| v.id));
            }
            Stmt::AssertEq {
                expected, found, ..
            } => {
                atom_use(expected, uses);
                atom_use(found, uses);
            }
            Stmt::Assert { cond, report, .. } => {
                atom_use(cond, uses);
                report.iter().for_each(|a| atom_use(a, uses));
            }
            Stmt::SizeCheck { size, .. } => atom_use(size, uses),
            Stmt::IndexCheck { index, len, .. } => {
                atom_use(index, uses);
                atom_use(len, uses);
            }
            Stmt::BoundsCheck { array, index, .. } => {
                uses.insert(*array);
                index.iter().for_each(|a| atom_use(a, uses));
            }
            Stmt::SliceCheck {
                start,
                end,
                stride,
                count,
                len,
                ..
            } => [start, end, stride, count, len]
                .into_iter()
                .for_each(|a| atom_use(a, uses)),
            Stmt::View {
                var,
                array,
                offset,
                shape,
            } => {
                uses.insert(*array);
                atom_use(offset, uses);
                shape.iter().for_each(|a| atom_use(a, uses));
                defs.insert(var.id);
            }
            Stmt::Free(array) => {
                uses.insert(*array);
            }
            Stmt::InPlace { var, array } => {
                uses.insert(*array);
                defs.insert(var.id);
            }
            Stmt::SeqLoop(lp) => {
                for p in &lp.params {
                    atom_use(&p.init, uses);
                    defs.insert(p.var.id);
                    defs.extend(p.shape.iter().map(|d| d.id));
                }
                match &lp.form {
                    SeqForm::For { index, bound } => {
                        atom_use(bound, uses);
                        defs.insert(index.id);
                    }
                    SeqForm::While { cond, result } => {
                        block_vars(cond, uses, defs);
                        atom_use(result, uses);
                    }
                }
                block_vars(&lp.body, uses, defs);
                lp.next.iter().for_each(|a| atom_use(a, uses));
                for r in &lp.results {
                    defs.insert(r.var.id);
                    defs.extend(r.shape.iter().map(|d| d.id));
                }
            }
            Stmt::Loop(nest) => {
                atom_use(&nest.width, uses);
                nest.carried().for_each(|c| atom_use(&c.init, uses));
                nest_inner_vars(nest, uses, defs);
            }
        }
    }
}

/// Calls `f` on every variable `block` binds, at any depth: statements,
/// branches' results, sequential loops' parameters, shapes, indices and
/// results, nests' indices, carried values, results and operators'
/// parameters.
pub fn for_each_binder(block: &Block, f: &mut dyn FnMut(&Var)) {
    for stmt in block {
        match stmt {
            Stmt::Let { var, .. }
            | Stmt::Alloc { var, .. }
            | Stmt::Read { var, .. }
            | Stmt::Row { var, .. }
            | Stmt::View { var, .. }
            | Stmt::InPlace { var, .. } => f(var),
            Stmt::SeqLoop(lp) => {
                for p in &lp.params {
                    f(&p.var);
                    p.shape.iter().for_each(&mut *f);
                }
                match &lp.form {
                    SeqForm::For { index, .. } => f(index),
                    SeqForm::While { cond, .. } => for_each_binder(cond, f),
                }
                for_each_binder(&lp.body, f);
                for r in &lp.results {
                    f(&r.var);
                    r.shape.iter().for_each(&mut *f);
                }
            }
            Stmt::If {
                results,
                then_block,
                else_block,
                ..
            } => {
                results.iter().for_each(&mut *f);
                for_each_binder(then_block, f);
                for_each_binder(else_block, f);
            }
            Stmt::Loop(nest) => {
                f(&nest.index);
                for r in &nest.reductions {
                    r.results.iter().for_each(&mut *f);
                    operator_binders(&r.op, f);
                }
                for s in &nest.scans {
                    operator_binders(&s.op, f);
                }
                for h in &nest.hists {
                    operator_binders(&h.op, f);
                }
                for c in &nest.compactions {
                    f(&c.result);
                }
                for c in nest.carried() {
                    f(&c.var);
                }
                for_each_binder(&nest.body, f);
            }
            Stmt::Write { .. }
            | Stmt::Copy { .. }
            | Stmt::AssertEq { .. }
            | Stmt::Assert { .. }
            | Stmt::SizeCheck { .. }
            | Stmt::IndexCheck { .. }
            | Stmt::BoundsCheck { .. }
            | Stmt::SliceCheck { .. }
            | Stmt::Free(_) => {}
        }
    }
}

fn operator_binders(op: &Operator, f: &mut dyn FnMut(&Var)) {
    op.params.iter().for_each(&mut *f);
    for_each_binder(&op.body, f);
}
