//! Which statements may update their array operand in place: `a with [i] =
//! v` and `scatter` copy their destination unless it is dead afterwards.
//! Without this a loop that updates an array element by element would copy
//! the whole array per iteration.
//!
//! A statement qualifies when the consumed variable is bound in the body
//! being walked (or in an enclosing body reached only through `if`
//! branches: loops and lambdas run their bodies repeatedly, so their outer
//! variables are never consumed) and nothing later reads it. The interpreter
//! then moves the value out of its variable and writes into it only if no
//! other value shares the storage (reference count 1), so aliases made by
//! `let b = a`, rows of a mapped array and the like still get copies.

use crate::core::free::free_in_exp;
use crate::core::ir::{Atom, Body, Exp, Function, Lambda, LoopForm, SoacKind, Stm, VarId};
use std::collections::HashSet;

/// The addresses of the statements of `f` that may consume their operand.
pub(super) fn consuming_statements(f: &Function) -> HashSet<usize> {
    let mut out = HashSet::new();
    let owned: HashSet<VarId> = f.params.iter().map(|p| p.id).collect();
    walk_body(&f.body, &HashSet::new(), &owned, &mut out);
    out
}

/// The variables a statement consumes, if it may consume them at all:
/// distinct, and read nowhere else by the statement.
fn consumed(stm: &Stm) -> Option<Vec<VarId>> {
    match &stm.exp {
        Exp::Update { array, .. } => Some(vec![*array]),
        Exp::Soac(soac) => match &soac.kind {
            SoacKind::Scatter { dest, .. } => {
                let distinct: HashSet<VarId> = dest.iter().copied().collect();
                let clash = soac.args.iter().any(|a| distinct.contains(a));
                (distinct.len() == dest.len() && !clash).then(|| dest.clone())
            }
            _ => None,
        },
        _ => None,
    }
}

fn walk_lambda(lam: &Lambda, out: &mut HashSet<usize>) {
    let owned = lam.params.iter().map(|p| p.id).collect();
    walk_body(&lam.body, &HashSet::new(), &owned, out);
}

/// `live_out`: variables read after `body` by its continuation; `owned`:
/// variables of enclosing bodies that this one may consume.
fn walk_body(
    body: &Body,
    live_out: &HashSet<VarId>,
    owned: &HashSet<VarId>,
    out: &mut HashSet<usize>,
) {
    let mut owned = owned.clone();
    owned.extend(body.stms.iter().flat_map(|s| s.pat.iter().map(|v| v.id)));
    let mut live = live_out.clone();
    live.extend(body.result.iter().filter_map(|a| match a {
        Atom::Var(v) => Some(*v),
        Atom::Const(_) => None,
    }));
    for stm in body.stms.iter().rev() {
        for v in &stm.pat {
            live.remove(&v.id);
        }
        if let Some(vs) = consumed(stm) {
            if vs.iter().all(|v| owned.contains(v) && !live.contains(v)) {
                out.insert(stm as *const Stm as usize);
            }
        }
        match &stm.exp {
            Exp::If {
                then_body,
                else_body,
                ..
            } => {
                walk_body(then_body, &live, &owned, out);
                walk_body(else_body, &live, &owned, out);
            }
            Exp::Loop { params, form, body } => {
                let mut inner: HashSet<VarId> = params.iter().map(|(p, _)| p.id).collect();
                if let LoopForm::While { cond } = form {
                    // The condition runs before the body, which reads the
                    // parameters: it consumes nothing of theirs.
                    walk_body(cond, &HashSet::new(), &HashSet::new(), out);
                }
                if let LoopForm::For { index, .. } = form {
                    inner.insert(index.id);
                }
                walk_body(body, &HashSet::new(), &inner, out);
            }
            Exp::Soac(soac) => {
                if let Some(lam) = soac.kind.lambda() {
                    walk_lambda(lam, out);
                }
            }
            _ => {}
        }
        live.extend(free_in_exp(&stm.exp));
    }
}
