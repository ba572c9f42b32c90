//! A user's `(i + c) % n` as the rotation's conditional subtraction. In:
//! a lowered function; out: the same function where, in a nest over
//! `i < n`, `mod (add i c) n` is `s = i + c; s - (s >= n) * n` when `c`
//! is known to lie in `0..n` in every iteration:
//!
//! - `c` is the constant 0 or 1 (the nest runs only when `n >= 1`);
//! - `c` is `mod x n` with `x` the same in every iteration (Futhark's `%`
//!   is floored, so `c` is in `0..n` whatever `x`'s sign). Defined in the
//!   nest's body, it is computed again before the nest as `mod x (max n
//!   1)`, which cannot divide by zero and equals it whenever the body
//!   runs.
//!
//! `i + c` is then below `2n`, so the subtraction is the remainder, and
//! the comparison is one `loopy::chunk` cuts the loop at (`LoopShape::Cut`),
//! as it does a `rotate`'s (`loopy::lower`'s `rotated`): no division, no
//! gather. Any other `c` (a negative constant, a constant above 1, an
//! unbounded variable) keeps its `mod`.

use super::ir::{Block, Function, LoopNest, ScalarExp, Stmt};
use super::rename::{fresh_above, Fresh, NameSource};
use crate::core::ir::{Atom, BinOp, SrcLoc, Type, VarId};
use crate::types::{Const, ScalarType};
use std::collections::{BTreeSet, HashMap, HashSet};

type Defs = HashMap<VarId, (BinOp, Atom, Atom)>;

/// Rewrites `f` as the module comment says.
pub fn wrap_shifted_remainders(f: &mut Function) {
    let mut defs = Defs::new();
    super::chunk::for_each_stmt(&f.body, &mut |stmt| {
        if let Stmt::Let {
            var,
            exp: ScalarExp::BinOp(op, a, b),
            ..
        } = stmt
        {
            defs.insert(var.id, (*op, *a, *b));
        }
    });
    let mut fresh = fresh_above(f);
    block(&mut f.body, &defs, &mut fresh);
}

fn block(b: &mut Block, defs: &Defs, fresh: &mut Fresh) {
    let mut k = 0;
    while k < b.len() {
        for inner in b[k].inner_blocks_mut() {
            block(inner, defs, fresh);
        }
        let before = match &mut b[k] {
            Stmt::Loop(nest) => nest_remainders(nest, defs, fresh),
            _ => Vec::new(),
        };
        let added = before.len();
        b.splice(k..k, before);
        k += added + 1;
    }
}

const I64: Type = Type::Scalar(ScalarType::I64);

fn let_(var: &crate::core::ir::Var, exp: ScalarExp) -> Stmt {
    Stmt::Let {
        var: var.clone(),
        exp,
        loc: SrcLoc::default(),
    }
}

/// Rewrites the remainders of `nest`'s body; returns the statements that
/// go before the nest (the hoisted shifts).
fn nest_remainders(nest: &mut LoopNest, defs: &Defs, fresh: &mut Fresh) -> Vec<Stmt> {
    let outside: HashSet<VarId> = nest.free_vars().into_iter().collect();
    let invariant = |a: &Atom| match a {
        Atom::Var(v) => outside.contains(v),
        Atom::Const(c) => c.as_i128().is_some(),
    };
    let (index, width) = (Atom::Var(nest.index.id), nest.width);
    let mut found = Vec::new();
    super::chunk::for_each_stmt(&nest.body, &mut |stmt| {
        let Stmt::Let {
            var,
            exp: ScalarExp::BinOp(BinOp::Mod, Atom::Var(sum), n),
            ..
        } = stmt
        else {
            return;
        };
        let Some(&(BinOp::Add, a, b)) = defs.get(sum) else {
            return;
        };
        let c = match (a, b) {
            (x, c) | (c, x) if x == index && var.ty == I64 && *n == width => c,
            _ => return,
        };
        let shift = match c {
            Atom::Const(Const::I64(0 | 1)) => Shift::Known(c),
            Atom::Var(v) => match defs.get(&v) {
                Some(&(BinOp::Mod, _, m)) if m == width && invariant(&c) => Shift::Known(c),
                Some(&(BinOp::Mod, x, m)) if m == width && invariant(&x) => Shift::Hoisted(x, v),
                _ => return,
            },
            _ => return,
        };
        found.push((var.clone(), *sum, shift));
    });
    let mut before = Vec::new();
    for (var, sum, shift) in found {
        let hoisted_from = match shift {
            Shift::Hoisted(_, c) => Some(c),
            Shift::Known(_) => None,
        };
        let shift = match shift {
            Shift::Known(c) => c,
            Shift::Hoisted(x, _) => {
                let n1 = fresh.fresh_var("n1", I64);
                let c = fresh.fresh_var("shift", I64);
                let one = Atom::Const(Const::I64(1));
                before.push(let_(&n1, ScalarExp::BinOp(BinOp::Max, width, one)));
                before.push(let_(&c, ScalarExp::BinOp(BinOp::Mod, x, Atom::Var(n1.id))));
                Atom::Var(c.id)
            }
        };
        let s = fresh.fresh_var("s", I64);
        let wraps = fresh.fresh_var("wraps", Type::Scalar(ScalarType::Bool));
        let wrap = fresh.fresh_var("wrap", I64);
        let back = fresh.fresh_var("back", I64);
        let v = |x: &crate::core::ir::Var| Atom::Var(x.id);
        let stmts = vec![
            let_(&s, ScalarExp::BinOp(BinOp::Add, index, shift)),
            let_(&wraps, ScalarExp::BinOp(BinOp::Ge, v(&s), width)),
            let_(&wrap, ScalarExp::Convert(ScalarType::I64, v(&wraps))),
            let_(&back, ScalarExp::BinOp(BinOp::Mul, v(&wrap), width)),
            let_(&var, ScalarExp::BinOp(BinOp::Sub, v(&s), v(&back))),
        ];
        replace_let(&mut nest.body, var.id, stmts);
        // The old sum and an in-body `mod x n` are dead now (the latter
        // still checking its divisor in every iteration).
        for old in [Some(sum), hoisted_from] {
            let mut uses = BTreeSet::new();
            super::vars::nest_inner_vars(nest, &mut uses, &mut HashSet::new());
            if let Some(old) = old.filter(|v| !uses.contains(v)) {
                replace_let(&mut nest.body, old, Vec::new());
            }
        }
    }
    before
}

/// What `c` of `(i + c) % n` is, as known: the atom itself (a constant, a
/// variable from outside the nest), or `mod x n` to compute before it
/// (`x`, and the variable the body defines by it).
enum Shift {
    Known(Atom),
    Hoisted(Atom, VarId),
}

/// Replaces the `Let` of `var` in `b`, at any depth, by `stmts`.
fn replace_let(b: &mut Block, var: VarId, stmts: Vec<Stmt>) -> Option<Vec<Stmt>> {
    let at = b
        .iter()
        .position(|s| matches!(s, Stmt::Let { var: v, .. } if v.id == var));
    if let Some(at) = at {
        b.splice(at..=at, stmts);
        return None;
    }
    let mut stmts = Some(stmts);
    for stmt in b.iter_mut() {
        for inner in stmt.inner_blocks_mut() {
            stmts = replace_let(inner, var, stmts?);
        }
    }
    stmts
}
