//! The verifier of the core IR (`core::ir::Program` in, the first broken
//! invariant out): every variable bound once in the whole program and used
//! only where it is in scope, every SOAC label unique, and the arities that
//! follow from A-normal form (one binder per scalar expression, as many
//! binders as an `if`'s branches or a loop's parameters give, as many
//! lambda results as its types). The pass list runs it after every pass
//! over the core IR in tests and debug builds (`driver::passes`).

use super::free::free_in_exp;
use super::ir::{Body, Exp, Function, LoopForm, Program, SoacId, Var, VarId};
use super::print::visit_nested;
use std::collections::HashSet;

pub fn check(program: &Program) -> Result<(), String> {
    let mut checker = Checker::default();
    for f in &program.entries {
        checker
            .function(f)
            .map_err(|e| format!("core IR, entry `{}`: {e}", f.name))?;
    }
    Ok(())
}

#[derive(Default)]
struct Checker {
    /// Every variable bound so far, anywhere.
    bound: HashSet<VarId>,
    labels: HashSet<SoacId>,
    /// The variables in scope, innermost block last.
    scopes: Vec<HashSet<VarId>>,
}

fn show(v: &Var) -> String {
    format!("{}_{}", v.name, v.id.0)
}

impl Checker {
    fn bind(&mut self, v: &Var) -> Result<(), String> {
        if !self.bound.insert(v.id) {
            return Err(format!("{} is bound twice", show(v)));
        }
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(v.id);
        }
        Ok(())
    }

    fn in_scope(&self, v: VarId) -> bool {
        self.scopes.iter().any(|s| s.contains(&v))
    }

    fn function(&mut self, f: &Function) -> Result<(), String> {
        self.scopes.push(HashSet::new());
        for p in &f.params {
            self.bind(p)?;
        }
        for sp in &f.size_params {
            // Bound with the parameter dimension it names.
            if !self.in_scope(sp.var.id) {
                self.bind(&sp.var)?;
            }
        }
        self.body(&f.body, &[], &HashSet::new())?;
        self.scopes.pop();
        if f.body.result.len() != f.ret.len() {
            return Err(format!(
                "{} results for {} result types",
                f.body.result.len(),
                f.ret.len()
            ));
        }
        Ok(())
    }

    /// A block with `params` bound in it; `shared` are binders the
    /// statement around it has bound already (a loop's parameters are
    /// bound in its condition and in its body).
    fn body(&mut self, body: &Body, params: &[Var], shared: &HashSet<VarId>) -> Result<(), String> {
        self.scopes.push(HashSet::new());
        for p in params {
            if shared.contains(&p.id) {
                if let Some(scope) = self.scopes.last_mut() {
                    scope.insert(p.id);
                }
            } else {
                self.bind(p)?;
            }
        }
        for stm in &body.stms {
            for v in free_in_exp(&stm.exp) {
                if !self.in_scope(v) {
                    return Err(format!("v_{} is used out of scope", v.0));
                }
            }
            self.arity(&stm.pat, &stm.exp)?;
            let mut nested = Ok(());
            let mut shared = HashSet::new();
            visit_nested(&stm.exp, |inner, bound| {
                if nested.is_ok() {
                    nested = self.body(inner, bound, &shared);
                    shared.extend(bound.iter().map(|v| v.id));
                }
            });
            nested?;
            for v in &stm.pat {
                self.bind(v)?;
            }
        }
        for a in &body.result {
            if let super::ir::Atom::Var(v) = a {
                if !self.in_scope(*v) {
                    return Err(format!("result v_{} is out of scope", v.0));
                }
            }
        }
        self.scopes.pop();
        Ok(())
    }

    fn arity(&mut self, pat: &[Var], exp: &Exp) -> Result<(), String> {
        let what = |n: usize| {
            let names: Vec<String> = pat.iter().map(show).collect();
            format!(
                "`{}` binds {} variables where {n} are made",
                names.join(", "),
                pat.len()
            )
        };
        let made = match exp {
            Exp::Atom(_)
            | Exp::BinOp(..)
            | Exp::UnOp(..)
            | Exp::Convert(..)
            | Exp::Fma(..)
            | Exp::Index { .. }
            | Exp::Size { .. }
            | Exp::Iota(_)
            | Exp::Replicate { .. }
            | Exp::ArrayLit { .. }
            | Exp::Slice { .. }
            | Exp::Update { .. }
            | Exp::Transpose(_)
            | Exp::Flatten(_)
            | Exp::Unflatten { .. }
            | Exp::Reverse(_)
            | Exp::Rotate { .. }
            | Exp::Concat(_) => Some(1),
            Exp::AssertEqSizes(..) | Exp::Assert(..) => None,
            Exp::If {
                then_body,
                else_body,
                ..
            } => {
                if then_body.result.len() != else_body.result.len() {
                    return Err("an `if`'s branches give different numbers of results".into());
                }
                Some(then_body.result.len())
            }
            Exp::Loop { params, form, body } => {
                if body.result.len() != params.len() {
                    return Err(format!(
                        "a loop of {} parameters whose body gives {}",
                        params.len(),
                        body.result.len()
                    ));
                }
                if let LoopForm::While { cond } = form {
                    if cond.result.len() != 1 {
                        return Err("a `while` condition without one result".into());
                    }
                }
                Some(params.len())
            }
            Exp::Soac(soac) => {
                if !self.labels.insert(soac.label) {
                    return Err(format!("SOAC label {} is used twice", soac.label.0));
                }
                if let Some(lam) = soac.kind.lambda() {
                    if lam.body.result.len() != lam.ret.len() {
                        return Err(format!(
                            "the function of SOAC {} gives {} results for {} types",
                            soac.label.0,
                            lam.body.result.len(),
                            lam.ret.len()
                        ));
                    }
                }
                None
            }
        };
        match made {
            Some(n) if n != pat.len() => Err(what(n)),
            _ => Ok(()),
        }
    }
}
