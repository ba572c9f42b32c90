//! Free variables of core IR expressions and bodies: what a statement reads.

use super::ir::{Atom, Body, DimSlice, Exp, Lambda, LoopForm, Soac, SoacKind, VarId};
use std::collections::HashSet;

/// Variables `exp` reads that it does not bind itself, in first-use order.
pub fn free_in_exp(exp: &Exp) -> Vec<VarId> {
    let mut acc = Acc::default();
    acc.exp(exp);
    acc.order
}

/// Variables read by `exp` other than its SOAC array arguments: the width,
/// neutral elements, and free variables of its functions (gathers and scalars).
pub fn free_in_exp_except_soac_args(exp: &Exp) -> Vec<VarId> {
    match exp {
        Exp::Soac(soac) => free_in_soac_except_args(soac),
        other => free_in_exp(other),
    }
}

/// Variables `soac` reads other than its array arguments.
pub fn free_in_soac_except_args(soac: &Soac) -> Vec<VarId> {
    let mut acc = Acc::default();
    acc.atom(&soac.width);
    acc.soac_kind(&soac.kind);
    acc.order
}

pub fn free_in_body(body: &Body) -> Vec<VarId> {
    let mut acc = Acc::default();
    acc.body(body);
    acc.order
}

#[derive(Default)]
struct Acc {
    bound: Vec<HashSet<VarId>>,
    seen: HashSet<VarId>,
    order: Vec<VarId>,
}

impl Acc {
    fn use_var(&mut self, v: VarId) {
        if self.bound.iter().any(|scope| scope.contains(&v)) {
            return;
        }
        if self.seen.insert(v) {
            self.order.push(v);
        }
    }

    fn atom(&mut self, a: &Atom) {
        if let Atom::Var(v) = a {
            self.use_var(*v);
        }
    }

    fn body(&mut self, body: &Body) {
        self.bound.push(HashSet::new());
        for stm in &body.stms {
            self.exp(&stm.exp);
            let scope = self.bound.last_mut().expect("pushed above");
            scope.extend(stm.pat.iter().map(|v| v.id));
        }
        for a in &body.result {
            self.atom(a);
        }
        self.bound.pop();
    }

    fn lambda(&mut self, lam: &Lambda) {
        self.bound.push(lam.params.iter().map(|p| p.id).collect());
        self.body(&lam.body);
        self.bound.pop();
    }

    fn soac_kind(&mut self, kind: &SoacKind) {
        match kind {
            SoacKind::Map(lam) => self.lambda(lam),
            SoacKind::Reduce { op, neutral }
            | SoacKind::Scan { op, neutral }
            | SoacKind::ScanRight { op, neutral } => {
                for a in neutral {
                    self.atom(a);
                }
                self.lambda(op);
            }
            SoacKind::Filter { pred } | SoacKind::Partition { pred } => self.lambda(pred),
            SoacKind::Scatter { dest, .. } => {
                for v in dest {
                    self.use_var(*v);
                }
            }
            SoacKind::Hist {
                op,
                neutral,
                bins,
                dest,
            } => {
                for a in neutral {
                    self.atom(a);
                }
                self.atom(bins);
                for v in dest.iter().flatten() {
                    self.use_var(*v);
                }
                self.lambda(op);
            }
        }
    }

    fn exp(&mut self, exp: &Exp) {
        match exp {
            Exp::Atom(a) | Exp::UnOp(_, a) | Exp::Convert(_, a) | Exp::Iota(a) => self.atom(a),
            Exp::Assert(a, report) => {
                self.atom(a);
                report.atoms().iter().for_each(|x| self.atom(x));
            }
            Exp::Loop { params, form, body } => {
                for (_, init) in params {
                    self.atom(init);
                }
                let mut scope: HashSet<VarId> = params.iter().map(|(v, _)| v.id).collect();
                match form {
                    LoopForm::For { index, bound } => {
                        self.atom(bound);
                        scope.insert(index.id);
                        self.bound.push(scope);
                    }
                    LoopForm::While { cond } => {
                        self.bound.push(scope);
                        self.body(cond);
                    }
                }
                self.body(body);
                self.bound.pop();
            }
            Exp::Slice { array, dims } => {
                self.use_var(*array);
                for d in dims {
                    match d {
                        DimSlice::Index(a) => self.atom(a),
                        DimSlice::Range { start, end, stride } => {
                            self.atom(start);
                            self.atom(end);
                            self.atom(stride);
                        }
                    }
                }
            }
            Exp::Update {
                array,
                indices,
                value,
            } => {
                self.use_var(*array);
                for a in indices {
                    self.atom(a);
                }
                self.atom(value);
            }
            Exp::Transpose(v) | Exp::Flatten(v) | Exp::Reverse(v) => self.use_var(*v),
            Exp::Unflatten { array, rows, cols } => {
                self.use_var(*array);
                self.atom(rows);
                self.atom(cols);
            }
            Exp::Rotate { array, amount } => {
                self.use_var(*array);
                self.atom(amount);
            }
            Exp::Concat(vs) => {
                for v in vs {
                    self.use_var(*v);
                }
            }
            Exp::BinOp(_, a, b) | Exp::AssertEqSizes(a, b) => {
                self.atom(a);
                self.atom(b);
            }
            Exp::Fma(a, b, c) => {
                self.atom(a);
                self.atom(b);
                self.atom(c);
            }
            Exp::Replicate { count, value } => {
                self.atom(count);
                self.atom(value);
            }
            Exp::If {
                cond,
                then_body,
                else_body,
            } => {
                self.atom(cond);
                self.body(then_body);
                self.body(else_body);
            }
            Exp::Index { array, indices, .. } => {
                self.use_var(*array);
                for a in indices {
                    self.atom(a);
                }
            }
            Exp::Size { array, .. } => self.use_var(*array),
            Exp::ArrayLit { items, .. } => {
                for a in items {
                    self.atom(a);
                }
            }
            Exp::Soac(soac) => {
                self.atom(&soac.width);
                self.soac_kind(&soac.kind);
                for a in &soac.args {
                    self.use_var(*a);
                }
            }
        }
    }
}
