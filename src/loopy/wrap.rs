//! A user's `(i + c) % n` as the rotation's conditional subtraction. In:
//! a lowered function; out: the same function where, in a nest over
//! `i < n`, `mod (add i c) n` is `s = i + c; s - (s >= n) * n` when `c`
//! is known to lie in `0..=n` in every iteration:
//!
//! - `c` is the constant 0 or 1, or `n - 1` or `n` (the nest runs only
//!   when `n >= 1`); the sum may be spelt through additions and
//!   subtractions of `i`, `n` and small constants, as periodic stencils
//!   write it: `(i + n - 1) % n`, `(i - 1 + n) % n`;
//! - `c` is `mod x n` with `x` the same in every iteration (Futhark's `%`
//!   is floored, so `c` is in `0..n` whatever `x`'s sign). Defined in the
//!   nest's body, it is computed again before the nest as `mod x (max n
//!   1)`, which cannot divide by zero and equals it whenever the body
//!   runs;
//! - any other `k * n + c` with `k` 0 or 1 and a constant `|c| <= 2^31`
//!   (`(i + 3) % n`, `(i + n - 2) % n`, not known to be in range: `n` may
//!   be 1) is reduced the same way before the nest, `mod (k * n + c) (max
//!   n 1)`: one division per run of the nest instead of one per element.
//!   Where the user's sum would wrap around and this one not, or the
//!   reverse, `n` is above `2^62` and the iteration past the first
//!   `2^62`, which no nest reaches.
//!
//! `i + c` is then below `2n`, so the subtraction is the remainder, and
//! the comparison is one `loopy::chunk` cuts the loop at (`LoopShape::Cut`),
//! as it does a `rotate`'s (`loopy::lower`'s `rotated`): no division, no
//! gather. Any other `c` (an unbounded variable) keeps its `mod`.

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
        if var.ty != I64 || *n != width {
            return;
        }
        // `i + x % n` (the remainder known, or computed before the nest).
        let remainder = match defs.get(sum) {
            Some(&(BinOp::Add, a, b)) if a == index || b == index => {
                let c = if a == index { b } else { a };
                match c {
                    Atom::Var(v) => match defs.get(&v) {
                        Some(&(BinOp::Mod, _, m)) if m == width && invariant(&c) => {
                            Some(Shift::Known(c))
                        }
                        Some(&(BinOp::Mod, x, m)) if m == width && invariant(&x) => {
                            Some(Shift::Hoisted(x, v))
                        }
                        _ => None,
                    },
                    Atom::Const(_) => None,
                }
            }
            _ => None,
        };
        let shift = match remainder {
            Some(shift) => shift,
            None => match offset(Atom::Var(*sum), index, width, defs) {
                Some((1, 0, c @ (0 | 1))) => Shift::Known(Atom::Const(Const::I64(c))),
                Some((1, 1, 0)) => Shift::Known(width),
                Some((1, times @ (0 | 1), c)) => Shift::Offset(times == 1, c),
                _ => return,
            },
        };
        found.push((var.clone(), *sum, shift));
    });
    let mut before = Vec::new();
    for (var, sum, shift) in found {
        let hoisted_from = match shift {
            Shift::Hoisted(_, c) => Some(c),
            _ => None,
        };
        let shift = match shift {
            Shift::Known(c) => c,
            // `n - 1` is in `0..n` whenever the nest runs.
            Shift::Offset(true, -1) => {
                let add = ScalarExp::BinOp(BinOp::Add, width, Atom::Const(Const::I64(-1)));
                hoisted(&mut before, fresh, add)
            }
            Shift::Offset(times, c) => {
                let c = Atom::Const(Const::I64(c));
                let x = if times {
                    hoisted(&mut before, fresh, ScalarExp::BinOp(BinOp::Add, width, c))
                } else {
                    c
                };
                reduced(&mut before, fresh, x, width)
            }
            Shift::Hoisted(x, _) => reduced(&mut before, fresh, x, width),
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
        // The old sum (with the adds and subtractions that led to it) and an
        // in-body `mod x n` are dead now (the latter still checking its
        // divisor in every iteration).
        let mut chain = vec![sum];
        while let Some(&(BinOp::Add | BinOp::Sub, Atom::Var(a), _)) =
            defs.get(chain.last().unwrap_or(&sum))
        {
            chain.push(a);
        }
        for old in chain.into_iter().map(Some).chain([hoisted_from]) {
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
/// variable from outside the nest), `mod x n` to compute before it (`x`,
/// and the variable the body defines by it), or `n` (when the flag says
/// so) plus a constant.
enum Shift {
    Known(Atom),
    Hoisted(Atom, VarId),
    Offset(bool, i64),
}

/// Constants beyond this are left alone: `i + k * n + c` must not wrap
/// around where the user's sum does not.
const SMALL: i64 = 1 << 31;

/// `a` as `i * index + k * width + c`, `(i, k, c)`, through the body's
/// additions and subtractions of the index, the width and small
/// constants (`i + n - 1`, `i - 1 + n`).
fn offset(a: Atom, index: Atom, width: Atom, defs: &Defs) -> Option<(i64, i64, i64)> {
    if a == index {
        return Some((1, 0, 0));
    }
    if a == width {
        return Some((0, 1, 0));
    }
    match a {
        Atom::Const(Const::I64(c)) if c.abs() <= SMALL => Some((0, 0, c)),
        Atom::Var(v) => {
            let &(op, x, y) = defs.get(&v)?;
            let sign = match op {
                BinOp::Add => 1,
                BinOp::Sub => -1,
                _ => return None,
            };
            let (x, y) = (
                offset(x, index, width, defs)?,
                offset(y, index, width, defs)?,
            );
            let c = x.2 + sign * y.2;
            (c.abs() <= SMALL).then_some((x.0 + sign * y.0, x.1 + sign * y.1, c))
        }
        Atom::Const(_) => None,
    }
}

/// `exp`, computed before the nest.
fn hoisted(before: &mut Vec<Stmt>, fresh: &mut Fresh, exp: ScalarExp) -> Atom {
    let c = fresh.fresh_var("shift", I64);
    before.push(let_(&c, exp));
    Atom::Var(c.id)
}

/// `mod x (max n 1)` before the nest: in `0..n`, and `(i + x) % n` when
/// the nest runs (Futhark's `%` is floored, whatever `x`'s sign).
fn reduced(before: &mut Vec<Stmt>, fresh: &mut Fresh, x: Atom, width: Atom) -> Atom {
    let n1 = fresh.fresh_var("n1", I64);
    let one = Atom::Const(Const::I64(1));
    before.push(let_(&n1, ScalarExp::BinOp(BinOp::Max, width, one)));
    hoisted(
        before,
        fresh,
        ScalarExp::BinOp(BinOp::Mod, x, Atom::Var(n1.id)),
    )
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
