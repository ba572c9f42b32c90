//! Hoisting of lambda- and loop-invariant computations: a statement in a
//! SOAC's lambda (or a loop's body) that reads nothing the lambda (loop)
//! binds is computed once, before it, instead of once per element. Only statements that cannot fail move
//! (the lambda or loop may run zero times), and nothing leaves an `if` branch (that
//! would be speculation, not hoisting). Invariants of a nested lambda climb
//! as far as they stay invariant.

use super::facts::Facts;
use super::walk::soac_lambda_mut;
use crate::core::free::free_in_exp;
use crate::core::ir::{Body, Exp, Function, LoopForm, Stm, VarId};
use std::collections::HashSet;

pub fn run(f: &mut Function, facts: &Facts) -> bool {
    let mut h = Hoister {
        facts,
        changed: false,
    };
    let stms = std::mem::take(&mut f.body.stms);
    let (kept, _) = h.stms(stms, None);
    f.body.stms = kept;
    h.changed
}

struct Hoister<'a> {
    facts: &'a Facts,
    changed: bool,
}

impl Hoister<'_> {
    /// Processes the statements of a body. `locals` is `Some` with the
    /// lambda's parameters when the body is a lambda's: statements that
    /// may leave it are returned second, in order.
    fn stms(&mut self, stms: Vec<Stm>, mut locals: Option<HashSet<VarId>>) -> (Vec<Stm>, Vec<Stm>) {
        let mut kept = Vec::with_capacity(stms.len());
        let mut hoisted = Vec::new();
        for mut stm in stms {
            let mut candidates = self.nested(&mut stm);
            candidates.push(stm);
            for c in candidates {
                let leaves = match &locals {
                    Some(locals) => {
                        !self.facts.may_fail_moved(&c)
                            && free_in_exp(&c.exp).iter().all(|v| !locals.contains(v))
                    }
                    None => false,
                };
                if leaves {
                    hoisted.push(c);
                } else {
                    if let Some(locals) = &mut locals {
                        locals.extend(c.pat.iter().map(|p| p.id));
                    }
                    kept.push(c);
                }
            }
        }
        (kept, hoisted)
    }

    /// Processes the bodies nested in `stm`; returns what leaves its lambda
    /// (to be placed just before `stm`).
    fn nested(&mut self, stm: &mut Stm) -> Vec<Stm> {
        match &mut stm.exp {
            Exp::If {
                then_body,
                else_body,
                ..
            } => {
                self.branch(then_body);
                self.branch(else_body);
                Vec::new()
            }
            Exp::Soac(soac) => match soac_lambda_mut(&mut soac.kind) {
                Some(lam) => {
                    let locals: HashSet<VarId> = lam.params.iter().map(|p| p.id).collect();
                    self.repeated(&mut lam.body, locals)
                }
                None => Vec::new(),
            },
            Exp::Loop { params, form, body } => {
                let mut locals: HashSet<VarId> = params.iter().map(|(v, _)| v.id).collect();
                let mut hoisted = Vec::new();
                match form {
                    LoopForm::For { index, .. } => {
                        locals.insert(index.id);
                    }
                    LoopForm::While { cond } => {
                        hoisted = self.repeated(cond, locals.clone());
                    }
                }
                hoisted.extend(self.repeated(body, locals));
                hoisted
            }
            _ => Vec::new(),
        }
    }

    /// A body run once per element or iteration; `locals` are what it binds
    /// on entry. Returns the statements that leave it.
    fn repeated(&mut self, body: &mut Body, locals: HashSet<VarId>) -> Vec<Stm> {
        let stms = std::mem::take(&mut body.stms);
        let (kept, hoisted) = self.stms(stms, Some(locals));
        body.stms = kept;
        if !hoisted.is_empty() {
            self.changed = true;
        }
        hoisted
    }

    fn branch(&mut self, body: &mut Body) {
        let stms = std::mem::take(&mut body.stms);
        let (kept, _) = self.stms(stms, None);
        body.stms = kept;
    }
}
