//! How the loop over a range of a nest's iterations (a task's chunk) is
//! generated, decided on the loopy IR for `loopy::par::plan_nests` (a nest's
//! `NestPlan`), so that `--emit loopy` shows it and the code generator runs
//! it:
//!
//! - versioned: a checked read whose indices are the nest's index plus a
//!   constant, or the same in every iteration (a stencil's `xs[i+1]`, a row
//!   `m[r, i]`), is proven in range for the whole range by one test before
//!   the loop, which then runs a copy without its checks (which vectorises);
//!   otherwise the checked copy runs and meets the first bad index as a
//!   sequential run would;
//! - peeled: a body that tests its index against a loop-invariant value
//!   (`j == 0`, `j == m - 1`: a stencil's border) runs its first and last
//!   iteration apart; between them those tests are known (checked once),
//!   the branches they decide fold away and more reads are proven;
//! - cut: an innermost body that compares its index plus a loop-invariant
//!   shift with a loop-invariant bound (a rotated read's wrap-around,
//!   `i + s >= n`, or the same written as an `if`) runs as up to
//!   `MAX_CUTS + 1` loops, cut where each comparison changes, each with
//!   the comparisons known: the conditional subtraction leaves the loop,
//!   the reads become contiguous and vectorise;
//! - lanes: a float scan's body, whose adds form a chain of several cycles
//!   each, runs several runs of consecutive iterations interleaved, when no
//!   iteration can fail;
//! - strided lanes: a selection reduction's body (argmax or argmin by
//!   `reduce` on pairs, `loopy::select`) runs lanes of every `L`-th
//!   iteration side by side, when no iteration can fail.

use super::ir::{
    Block, CutCondition, IndexCondition, LoopNest, LoopShape, ProvenRead, ReadDim, ScalarExp, Stmt,
};
use crate::core::ir::{Atom, BinOp, Type, VarId};
use crate::types::ScalarType;
use std::collections::{HashMap, HashSet};

/// The shape of the loop over a range of `nest`'s iterations that runs
/// `body` (its body, or its totals); `lanes` where a look-back scan's body
/// may run in lanes.
pub fn shape(nest: &LoopNest, body: &Block, lanes: bool) -> LoopShape {
    let conditions = index_conditions(nest, body);
    let reads = in_range_reads(nest, body, &HashMap::new());
    if !conditions.is_empty() {
        let facts = conditions.iter().map(|c| (c.var, c.apart)).collect();
        let middle = in_range_reads(nest, body, &facts);
        return LoopShape::Peeled {
            conditions,
            reads,
            middle,
        };
    }
    if lanes {
        return LoopShape::Lanes;
    }
    let strided = reads.is_empty() && infallible(body) && super::select::strided_selection(nest);
    let cuts = if strided || has_nest(body) {
        Vec::new()
    } else {
        cut_conditions(nest, body)
    };
    if strided {
        LoopShape::Strided
    } else if !cuts.is_empty() {
        LoopShape::Cut(cuts)
    } else if reads.is_empty() {
        LoopShape::Plain
    } else {
        LoopShape::Versioned(reads)
    }
}

/// The reads of `body` that one test before a loop can prove in range for
/// the loop's range: those at its top level, and in the branches that
/// `facts` (with the constants they fold into) decide.
pub fn in_range_reads(
    nest: &LoopNest,
    body: &Block,
    facts: &HashMap<VarId, bool>,
) -> Vec<ProvenRead> {
    let mut walk = ReadWalk {
        outside: nest.free_vars().into_iter().collect(),
        affine: HashMap::from([(nest.index.id, 0)]),
        known: facts.clone(),
        out: Vec::new(),
    };
    walk.block(body);
    walk.out
}

struct ReadWalk {
    outside: HashSet<VarId>,
    /// Variables equal to the nest's index plus a constant.
    affine: HashMap<VarId, i64>,
    /// Booleans known for every iteration.
    known: HashMap<VarId, bool>,
    out: Vec<ProvenRead>,
}

impl ReadWalk {
    fn block(&mut self, body: &Block) {
        for stmt in body {
            match stmt {
                Stmt::Let {
                    var,
                    exp: ScalarExp::BinOp(op, a, b),
                    ..
                } => {
                    self.offset(var.id, *op, a, b);
                    if let Some(t) = self.logic(*op, a, b) {
                        self.known.insert(var.id, t);
                    }
                }
                Stmt::Read {
                    var,
                    array,
                    index,
                    check: Some(_),
                } if self.outside.contains(array) => self.read(var.id, *array, index),
                Stmt::If {
                    results,
                    cond,
                    then_block,
                    then_results,
                    else_block,
                    else_results,
                } => {
                    let Some(taken) = self.truth(cond) else {
                        continue;
                    };
                    let (block, res) = if taken {
                        (then_block, then_results)
                    } else {
                        (else_block, else_results)
                    };
                    self.block(block);
                    for (r, a) in results.iter().zip(res) {
                        if let Some(t) = self.truth(a) {
                            self.known.insert(r.id, t);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn truth(&self, a: &Atom) -> Option<bool> {
        match a {
            Atom::Const(crate::types::Const::Bool(b)) => Some(*b),
            Atom::Var(v) => self.known.get(v).copied(),
            Atom::Const(_) => None,
        }
    }

    /// `a || b` or `a && b` when known facts decide it (simplify-fold
    /// writes `if c then true else e` as `or c e`).
    fn logic(&self, op: BinOp, a: &Atom, b: &Atom) -> Option<bool> {
        let (x, y) = (self.truth(a), self.truth(b));
        match op {
            BinOp::Or if x == Some(true) || y == Some(true) => Some(true),
            BinOp::Or => Some(x? || y?),
            BinOp::And if x == Some(false) || y == Some(false) => Some(false),
            BinOp::And => Some(x? && y?),
            _ => None,
        }
    }

    fn offset(&mut self, var: VarId, op: BinOp, a: &Atom, b: &Atom) {
        let offset = |x: &Atom| match x {
            Atom::Var(v) => self.affine.get(v).copied(),
            Atom::Const(_) => None,
        };
        let constant = |x: &Atom| match x {
            Atom::Const(c) => c.as_i128().and_then(|c| i64::try_from(c).ok()),
            Atom::Var(_) => None,
        };
        let shifted = match (op, offset(a), offset(b), constant(a), constant(b)) {
            (BinOp::Add, Some(o), _, _, Some(c)) | (BinOp::Add, _, Some(o), Some(c), _) => {
                o.checked_add(c)
            }
            (BinOp::Sub, Some(o), _, _, Some(c)) => o.checked_sub(c),
            _ => None,
        };
        // Offsets stay small, so `start + c` cannot overflow.
        if let Some(o) = shifted.filter(|o| o.unsigned_abs() < 1 << 40) {
            self.affine.insert(var, o);
        }
    }

    fn read(&mut self, var: VarId, array: VarId, index: &[Atom]) {
        let dims: Option<Vec<ReadDim>> = index
            .iter()
            .map(|a| match a {
                Atom::Var(v) if self.affine.contains_key(v) => {
                    Some(ReadDim::Affine(self.affine[v]))
                }
                Atom::Var(v) if self.outside.contains(v) => Some(ReadDim::Invariant(*a)),
                Atom::Const(_) => Some(ReadDim::Invariant(*a)),
                Atom::Var(_) => None,
            })
            .collect();
        if let Some(dims) = dims {
            self.out.push(ProvenRead { var, array, dims });
        }
    }
}

/// Conditions `index == x` and `index != x` of the body (at any depth)
/// with `x` the same in every iteration: `(condition, x, its value when
/// index != x)`. They decide branches of stencil boundaries, which peeling
/// takes out of the middle iterations of a chunk.
fn index_conditions(nest: &LoopNest, body: &Block) -> Vec<IndexCondition> {
    let outside: HashSet<VarId> = nest.free_vars().into_iter().collect();
    let index = Atom::Var(nest.index.id);
    let mut found = Vec::new();
    let mut visit = |stmt: &Stmt| {
        if let Stmt::Let {
            var,
            exp: ScalarExp::BinOp(op @ (BinOp::Eq | BinOp::Neq), a, b),
            ..
        } = stmt
        {
            let other = if *a == index {
                b
            } else if *b == index {
                a
            } else {
                return;
            };
            let invariant = match other {
                Atom::Var(v) => outside.contains(v),
                Atom::Const(c) => c.as_i128().is_some(),
            };
            if invariant {
                found.push(IndexCondition {
                    var: var.id,
                    value: *other,
                    apart: *op == BinOp::Neq,
                });
            }
        }
    };
    for_each_stmt(body, &mut visit);
    found
}

/// The most conditions a loop is cut at: `2^MAX_CUTS` copies of the body.
pub const MAX_CUTS: usize = 2;

/// Conditions `index + c >= b` of the body (`>`, `<`, `<=` too, either
/// operand first; `c` may be absent) with `c` and `b` the same in every
/// iteration, at most `MAX_CUTS` of them: where a loop may be cut (see
/// `LoopShape::Cut`).
fn cut_conditions(nest: &LoopNest, body: &Block) -> Vec<CutCondition> {
    let outside: HashSet<VarId> = nest.free_vars().into_iter().collect();
    let invariant = |a: &Atom| match a {
        Atom::Var(v) => outside.contains(v),
        Atom::Const(c) => c.as_i128().is_some(),
    };
    let zero = Atom::Const(crate::types::Const::I64(0));
    // Variables equal to the index plus an invariant shift.
    let mut shifted: HashMap<VarId, Atom> = HashMap::from([(nest.index.id, zero)]);
    let mut found: Vec<CutCondition> = Vec::new();
    for_each_stmt(body, &mut |stmt| {
        let Stmt::Let {
            var,
            exp: ScalarExp::BinOp(op, a, b),
            ..
        } = stmt
        else {
            return;
        };
        let shift_of = |x: &Atom| match x {
            Atom::Var(v) => shifted.get(v).copied(),
            Atom::Const(_) => None,
        };
        if *op == BinOp::Add && var.ty == Type::Scalar(ScalarType::I64) {
            let plain = |x: &Atom| x == &Atom::Var(nest.index.id);
            if plain(a) && invariant(b) {
                shifted.insert(var.id, *b);
            } else if plain(b) && invariant(a) {
                shifted.insert(var.id, *a);
            }
            return;
        }
        // `s OP bound` with `s` the shifted index, or the operands swapped
        // (`bound OP s` is `s OP' bound`).
        let (shift, bound, op) = match (shift_of(a), shift_of(b)) {
            (Some(c), None) if invariant(b) => (c, *b, *op),
            (None, Some(c)) if invariant(a) => (c, *a, swapped(*op)),
            _ => return,
        };
        let (extra, after) = match op {
            BinOp::Ge => (0, true),
            BinOp::Gt => (1, true),
            BinOp::Lt => (0, false),
            BinOp::Le => (1, false),
            _ => return,
        };
        if found.len() < MAX_CUTS {
            found.push(CutCondition {
                var: var.id,
                shift,
                bound,
                extra,
                after,
            });
        }
    });
    found
}

/// `b OP' a` for `a OP b`.
fn swapped(op: BinOp) -> BinOp {
    match op {
        BinOp::Ge => BinOp::Le,
        BinOp::Gt => BinOp::Lt,
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        other => other,
    }
}

/// Whether `block` holds a loop nest at any depth.
fn has_nest(block: &Block) -> bool {
    let mut found = false;
    for_each_stmt(block, &mut |stmt| found |= matches!(stmt, Stmt::Loop(_)));
    found
}

/// Calls `f` on every statement of `block`, at any depth (branches, loops
/// and nests).
pub(crate) fn for_each_stmt(block: &Block, f: &mut impl FnMut(&Stmt)) {
    for stmt in block {
        f(stmt);
        match stmt {
            Stmt::If {
                then_block,
                else_block,
                ..
            } => {
                for_each_stmt(then_block, f);
                for_each_stmt(else_block, f);
            }
            Stmt::SeqLoop(lp) => for_each_stmt(&lp.body, f),
            Stmt::Loop(inner) => for_each_stmt(&inner.body, f),
            _ => {}
        }
    }
}

/// Whether a look-back scan's body runs in lanes (`emit_in_lanes`): a scan
/// carries a float, whose adds chain at several cycles each (an integer
/// chain keeps up with the loop anyway), and no iteration can fail, since
/// lanes run iterations out of order.
pub fn runs_in_lanes(nest: &LoopNest) -> bool {
    let float_scan = nest
        .scans
        .iter()
        .flat_map(|s| &s.carried)
        .any(|c| matches!(c.var.ty, Type::Scalar(ScalarType::F32 | ScalarType::F64)));
    float_scan && infallible(&nest.body)
}

/// Whether no statement of `body` can fail a run-time check.
pub(crate) fn infallible(body: &Block) -> bool {
    body.iter().all(|stmt| match stmt {
        Stmt::Let { exp, .. } => !exp.may_fail(),
        Stmt::Read { check, .. } => check.is_none(),
        Stmt::Write { .. } => true,
        Stmt::If {
            then_block,
            else_block,
            ..
        } => infallible(then_block) && infallible(else_block),
        _ => false,
    })
}

/// One dimension of a read in a sequential `for` loop over `k`: `k` plus a
/// value the same in every iteration, or such a value alone.
#[derive(Clone, Debug, PartialEq)]
pub enum SeqDim {
    Offset(Atom),
    Invariant(Atom),
}

/// A checked read of a sequential loop's body whose every index is a
/// [`SeqDim`]: one test before the loop proves it in range for all
/// iterations (`k + c` for `k` in `0..bound` lies in `c..c + bound`).
#[derive(Clone, Debug, PartialEq)]
pub struct SeqRead {
    pub var: VarId,
    pub array: VarId,
    pub dims: Vec<SeqDim>,
}

/// The reads of an innermost `for` loop over an `i64` index (no loop or
/// nest inside, so that versioning it copies one body) at the top level of
/// its body that one test before it can prove in range: a CSR row's
/// `vals[start + k]`. Empty for other loops.
pub fn seq_in_range_reads(lp: &super::ir::SeqLoop) -> Vec<SeqRead> {
    let super::ir::SeqForm::For { index, .. } = &lp.form else {
        return Vec::new();
    };
    if index.ty != Type::Scalar(ScalarType::I64) || has_loop(&lp.body) {
        return Vec::new();
    }
    let mut inside = HashSet::from([index.id]);
    for p in &lp.params {
        inside.insert(p.var.id);
        inside.extend(p.shape.iter().map(|d| d.id));
    }
    let mut uses = std::collections::BTreeSet::new();
    super::ir::block_vars(&lp.body, &mut uses, &mut inside);
    let invariant = |a: &Atom| match a {
        Atom::Var(v) => !inside.contains(v),
        Atom::Const(c) => c.as_i128().is_some(),
    };
    let mut offsets: HashMap<VarId, Atom> = HashMap::new();
    let mut out = Vec::new();
    for stmt in &lp.body {
        match stmt {
            Stmt::Let {
                var,
                exp: ScalarExp::BinOp(BinOp::Add, a, b),
                ..
            } => {
                let k = Atom::Var(index.id);
                if *a == k && invariant(b) {
                    offsets.insert(var.id, *b);
                } else if *b == k && invariant(a) {
                    offsets.insert(var.id, *a);
                }
            }
            Stmt::Read {
                var,
                array,
                index: idx,
                check: Some(_),
            } if !inside.contains(array) => {
                let dims: Option<Vec<SeqDim>> = idx
                    .iter()
                    .map(|a| match a {
                        Atom::Var(v) if *v == index.id => {
                            Some(SeqDim::Offset(Atom::Const(crate::types::Const::I64(0))))
                        }
                        Atom::Var(v) if offsets.contains_key(v) => Some(SeqDim::Offset(offsets[v])),
                        a if invariant(a) => Some(SeqDim::Invariant(*a)),
                        _ => None,
                    })
                    .collect();
                if let Some(dims) = dims {
                    out.push(SeqRead {
                        var: var.id,
                        array: *array,
                        dims,
                    });
                }
            }
            _ => {}
        }
    }
    out
}

fn has_loop(block: &Block) -> bool {
    block.iter().any(|stmt| match stmt {
        Stmt::SeqLoop(_) | Stmt::Loop(_) => true,
        Stmt::If {
            then_block,
            else_block,
            ..
        } => has_loop(then_block) || has_loop(else_block),
        _ => false,
    })
}
