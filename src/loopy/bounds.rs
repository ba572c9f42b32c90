//! Bounds checks that loop bounds prove: a pass over lowered functions that
//! drops the check of a read or row when every index is either the index
//! of an enclosing loop (a nest, or a sequential `for`) whose bound is that
//! very dimension of the array (the same size variable), or a constant
//! inside a constant dimension, or an index clamped into the dimension
//! (`min (d - 1) (max k 0)`, a stencil's border) inside a loop whose bound
//! is that dimension, so that `d` is at least 1 there.
//!
//! Why: indexing written in the source (`m[j][i]` in maps over `iota`) is
//! lowered with checks, since the lowering does not relate the index to
//! the loop. A checked read costs a compare per access, and it keeps
//! `loopy::block` and `loopy::tile` away, which only reorder iterations
//! that cannot fail. A loop index runs over `0..bound` and a size
//! variable is defined once, so the same variable as bound and as
//! dimension proves the index in range.

use super::ir::{Block, Function, LoopNest, ScalarExp, SeqForm, Stmt};
use crate::core::ir::{Atom, BinOp, Var, VarId};
use crate::types::Const;
use std::collections::HashMap;

/// Drops the checks that loop bounds prove; see the module comment.
pub fn drop_proven_checks(f: &mut Function) {
    let mut facts = Facts::default();
    for p in &f.params {
        facts.shape_of(&p.var, &p.shape);
    }
    facts.block(&mut f.body);
}

#[derive(Default)]
struct Facts {
    /// The dimensions of the arrays whose shape is known.
    shapes: HashMap<VarId, Vec<Atom>>,
    /// Loop indices and the bound each runs below (from 0).
    bounds: HashMap<VarId, Atom>,
    /// The scalars defined so far (variables are defined once).
    lets: HashMap<VarId, ScalarExp>,
    /// The bounds of the loops around the current statement: at least 1
    /// inside an iteration.
    enclosing: Vec<Atom>,
}

impl Facts {
    /// `array` has one dimension per variable of `shape`.
    fn shape_of(&mut self, array: &Var, shape: &[Var]) {
        let dims = shape.iter().map(|d| Atom::Var(d.id)).collect();
        self.shapes.insert(array.id, dims);
    }

    fn in_range(&self, array: VarId, index: &[Atom]) -> bool {
        let Some(shape) = self.shapes.get(&array) else {
            return false;
        };
        index.len() <= shape.len()
            && index.iter().zip(shape).all(|(i, dim)| match (i, dim) {
                (Atom::Var(v), _) => self.bounds.get(v) == Some(dim) || self.clamped(*v, dim),
                (Atom::Const(Const::I64(c)), Atom::Const(Const::I64(n))) => (0..*n).contains(c),
                _ => false,
            })
    }

    /// `v` is `min (dim - 1) (max k 0)` (either operand order) inside a
    /// loop whose bound is `dim`: in `0..dim`.
    fn clamped(&self, v: VarId, dim: &Atom) -> bool {
        let def = |a: &Atom| match a {
            Atom::Var(t) => self.lets.get(t),
            Atom::Const(_) => None,
        };
        let zero = |a: &Atom| matches!(a, Atom::Const(Const::I64(0)));
        let below = |a: &Atom| matches!(def(a), Some(ScalarExp::BinOp(BinOp::Sub, d, Atom::Const(Const::I64(1)))) if d == dim);
        let nonneg = |a: &Atom| matches!(def(a), Some(ScalarExp::BinOp(BinOp::Max, x, y)) if zero(x) || zero(y));
        let Some(ScalarExp::BinOp(BinOp::Min, a, b)) = self.lets.get(&v) else {
            return false;
        };
        ((below(a) && nonneg(b)) || (below(b) && nonneg(a))) && self.enclosing.contains(dim)
    }

    fn block(&mut self, stmts: &mut Block) {
        for stmt in stmts {
            match stmt {
                Stmt::Let { var, exp, .. } => {
                    self.lets.insert(var.id, exp.clone());
                }
                Stmt::Read {
                    array,
                    index,
                    check,
                    ..
                } if self.in_range(*array, index) => *check = None,
                Stmt::Row {
                    var,
                    array,
                    index,
                    check,
                } => {
                    if self.in_range(*array, index) {
                        *check = None;
                    }
                    if let Some(rest) = self.shapes.get(array).and_then(|s| s.get(index.len()..)) {
                        self.shapes.insert(var.id, rest.to_vec());
                    }
                }
                Stmt::Alloc { var, shape, .. } | Stmt::View { var, shape, .. } => {
                    self.shapes.insert(var.id, shape.clone());
                }
                Stmt::InPlace { var, array } => {
                    if let Some(shape) = self.shapes.get(array).cloned() {
                        self.shapes.insert(var.id, shape);
                    }
                }
                Stmt::If {
                    then_block,
                    else_block,
                    ..
                } => {
                    self.block(then_block);
                    self.block(else_block);
                }
                Stmt::SeqLoop(lp) => {
                    for p in &lp.params {
                        self.shape_of(&p.var, &p.shape);
                    }
                    let depth = self.enclosing.len();
                    match &mut lp.form {
                        SeqForm::For { index, bound } => {
                            self.bounds.insert(index.id, *bound);
                            self.enclosing.push(*bound);
                        }
                        SeqForm::While { cond, .. } => self.block(cond),
                    }
                    self.block(&mut lp.body);
                    self.enclosing.truncate(depth);
                    for r in &lp.results {
                        self.shape_of(&r.var, &r.shape);
                    }
                }
                Stmt::Loop(nest) => self.nest(nest),
                _ => {}
            }
        }
    }

    fn nest(&mut self, nest: &mut LoopNest) {
        self.bounds.insert(nest.index.id, nest.width);
        self.enclosing.push(nest.width);
        self.block(&mut nest.body);
        self.enclosing.pop();
        for r in &mut nest.reductions {
            self.block(&mut r.op.body);
        }
        for s in &mut nest.scans {
            self.block(&mut s.op.body);
        }
        for h in &mut nest.hists {
            self.block(&mut h.op.body);
        }
    }
}
