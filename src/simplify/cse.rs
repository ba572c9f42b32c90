//! Common-subexpression elimination: a statement structurally equal to one
//! already computed in an enclosing scope is replaced by that one's results.
//! Equality is on a canonical key: operands of commutative operators in a
//! fixed order, lambdas and branches compared up to the names of the
//! variables they bind, SOAC labels ignored. Scalars and arrays alike (two
//! `iota n`, two identical `map`s). A repeated assertion goes too: the first
//! one already checked it.

use super::facts::{atom_key, AtomKey};
use super::walk::{exp_atoms_mut, nested_bodies_mut};
use crate::core::ir::{
    AssertReport, Atom, BinOp, Body, DimSlice, Exp, Function, Lambda, LoopForm, SoacKind, Stm,
    Type, VarId,
};
use crate::types::ScalarType;
use std::collections::HashMap;
use std::fmt::Write;

pub fn run(f: &mut Function) -> bool {
    let mut cse = Cse {
        avail: HashMap::new(),
        log: Vec::new(),
        subst: HashMap::new(),
        changed: false,
    };
    cse.body(&mut f.body);
    cse.changed
}

struct Cse {
    /// Key of a statement in scope to the variables it bound.
    avail: HashMap<String, Vec<VarId>>,
    /// Keys in `avail`, in insertion order, to close scopes.
    log: Vec<String>,
    /// Variables bound by a removed duplicate, to the original's.
    subst: HashMap<VarId, VarId>,
    changed: bool,
}

impl Cse {
    fn rename(&self, a: &mut Atom) {
        if let Atom::Var(v) = a {
            if let Some(w) = self.subst.get(v) {
                *v = *w;
            }
        }
    }

    fn body(&mut self, body: &mut Body) {
        let mark = self.log.len();
        let stms = std::mem::take(&mut body.stms);
        let mut kept = Vec::with_capacity(stms.len());
        for mut stm in stms {
            exp_atoms_mut(&mut stm.exp, |a| self.rename(a));
            for nested in nested_bodies_mut(&mut stm.exp) {
                self.body(nested);
            }
            let key = stm_key(&stm);
            match self.avail.get(&key) {
                Some(orig) if orig.len() == stm.pat.len() => {
                    for (p, o) in stm.pat.iter().zip(orig) {
                        self.subst.insert(p.id, *o);
                    }
                    self.changed = true;
                }
                _ => {
                    self.avail
                        .insert(key.clone(), stm.pat.iter().map(|p| p.id).collect());
                    self.log.push(key);
                    kept.push(stm);
                }
            }
        }
        body.stms = kept;
        for a in &mut body.result {
            self.rename(a);
        }
        for key in self.log.drain(mark..) {
            self.avail.remove(&key);
        }
    }
}

/// The canonical text of a statement: its result types and expression.
fn stm_key(stm: &Stm) -> String {
    let mut k = Keyer {
        locals: HashMap::new(),
        out: String::new(),
    };
    for p in &stm.pat {
        k.ty(p.ty);
    }
    k.out.push('|');
    k.exp(&stm.exp, stm.pat.first().map(|p| p.ty.elem()));
    k.out
}

struct Keyer {
    /// Variables bound inside the statement, numbered by first binding.
    locals: HashMap<VarId, usize>,
    out: String,
}

impl Keyer {
    fn ty(&mut self, t: Type) {
        let _ = write!(self.out, "{}{},", t.elem(), t.rank());
    }

    fn bind(&mut self, v: VarId, t: Type) {
        let n = self.locals.len();
        self.locals.insert(v, n);
        self.ty(t);
    }

    fn atom_text(&self, a: &Atom) -> String {
        match a {
            Atom::Var(v) => match self.locals.get(v) {
                Some(n) => format!("L{n}"),
                None => format!("v{}", v.0),
            },
            Atom::Const(c) => match atom_key(a) {
                AtomKey::Const(t, bits) => format!("c{t}:{bits}"),
                AtomKey::Var(_) => format!("{c}"),
            },
        }
    }

    fn atom(&mut self, a: &Atom) {
        let t = self.atom_text(a);
        self.out.push_str(&t);
        self.out.push(' ');
    }

    fn var(&mut self, v: VarId) {
        self.atom(&Atom::Var(v));
    }

    fn vars(&mut self, vs: &[VarId]) {
        for v in vs {
            self.var(*v);
        }
        self.out.push(';');
    }

    fn atoms(&mut self, atoms: &[Atom]) {
        for a in atoms {
            self.atom(a);
        }
        self.out.push(';');
    }

    fn body(&mut self, b: &Body) {
        self.out.push('{');
        for stm in &b.stms {
            for p in &stm.pat {
                self.bind(p.id, p.ty);
            }
            self.out.push('=');
            self.exp(&stm.exp, stm.pat.first().map(|p| p.ty.elem()));
            self.out.push(';');
        }
        for a in &b.result {
            self.atom(a);
        }
        self.out.push('}');
    }

    fn lambda(&mut self, lam: &Lambda) {
        self.out.push('\\');
        for p in &lam.params {
            self.bind(p.id, p.ty);
        }
        for t in &lam.ret {
            self.ty(*t);
        }
        self.body(&lam.body);
    }

    fn exp(&mut self, exp: &Exp, res: Option<ScalarType>) {
        match exp {
            Exp::Atom(a) => {
                self.out.push_str("atom ");
                self.atom(a);
            }
            Exp::BinOp(op, a, b) => {
                let _ = write!(self.out, "{} ", op.name());
                // Float min and max may differ on the sign of a zero.
                let float_minmax =
                    matches!(op, BinOp::Min | BinOp::Max) && res.is_none_or(|t| t.is_float());
                let (x, y) = (self.atom_text(a), self.atom_text(b));
                if op.is_commutative() && !float_minmax && y < x {
                    let _ = write!(self.out, "{y} {x}");
                } else {
                    let _ = write!(self.out, "{x} {y}");
                }
            }
            Exp::UnOp(op, a) => {
                let _ = write!(self.out, "{} ", op.name());
                self.atom(a);
            }
            Exp::Convert(t, a) => {
                let _ = write!(self.out, "convert {t} ");
                self.atom(a);
            }
            Exp::Fma(a, b, c) => {
                self.out.push_str("fma ");
                for x in [a, b, c] {
                    self.atom(x);
                    self.out.push(' ');
                }
            }
            Exp::If {
                cond,
                then_body,
                else_body,
            } => {
                self.out.push_str("if ");
                self.atom(cond);
                self.body(then_body);
                self.body(else_body);
            }
            Exp::Index {
                array,
                indices,
                checked,
            } => {
                self.out
                    .push_str(if *checked { "index " } else { "unsafe-index " });
                self.var(*array);
                for a in indices {
                    self.atom(a);
                }
            }
            Exp::Size { array, dim } => {
                let _ = write!(self.out, "size {dim} ");
                self.var(*array);
            }
            Exp::Iota(n) => {
                self.out.push_str("iota ");
                self.atom(n);
            }
            Exp::Replicate { count, value } => {
                self.out.push_str("replicate ");
                self.atom(count);
                self.atom(value);
            }
            Exp::ArrayLit { elem, items } => {
                self.out.push_str("lit ");
                self.ty(*elem);
                for a in items {
                    self.atom(a);
                }
            }
            Exp::AssertEqSizes(a, b) => {
                let (x, y) = (self.atom_text(a), self.atom_text(b));
                let (x, y) = if y < x { (y, x) } else { (x, y) };
                let _ = write!(self.out, "assert_eq_sizes {x} {y}");
            }
            Exp::Assert(c, report) => {
                self.out.push_str(match report {
                    // The first of two checks of one condition is the one
                    // that can fail, so its text is the one kept.
                    AssertReport::Plain | AssertReport::Condition(_) => "assert ",
                    AssertReport::NegativeExponent => "assert_exponent ",
                    AssertReport::Range(_) => "assert_range ",
                    AssertReport::Slice(_) => "assert_slice ",
                });
                self.atom(c);
                for a in report.atoms() {
                    self.out.push(' ');
                    self.atom(a);
                }
            }
            Exp::Soac(soac) => {
                let _ = write!(self.out, "{} ", soac.kind.name());
                match &soac.kind {
                    SoacKind::Hist {
                        neutral,
                        bins,
                        dest,
                        ..
                    } => {
                        self.atoms(neutral);
                        self.atom(bins);
                        match dest {
                            Some(d) => self.vars(d),
                            None => self.out.push('-'),
                        }
                    }
                    SoacKind::Scatter { dest, .. } => self.vars(dest),
                    kind => self.atoms(kind.neutral().unwrap_or(&[])),
                }
                self.out.push('|');
                self.atom(&soac.width);
                self.vars(&soac.args);
                if let Some(lam) = soac.kind.lambda() {
                    self.lambda(lam);
                }
            }
            Exp::Loop { params, form, body } => {
                self.out.push_str("loop ");
                for (v, init) in params {
                    self.atom(init);
                    self.bind(v.id, v.ty);
                }
                match form {
                    LoopForm::For { index, bound } => {
                        self.out.push_str("for ");
                        self.atom(bound);
                        self.bind(index.id, index.ty);
                    }
                    LoopForm::While { cond } => {
                        self.out.push_str("while ");
                        self.body(cond);
                    }
                }
                self.body(body);
            }
            Exp::Slice { array, dims } => {
                self.out.push_str("slice ");
                self.var(*array);
                for d in dims {
                    match d {
                        DimSlice::Index(a) => {
                            self.out.push('i');
                            self.atom(a);
                        }
                        DimSlice::Range { start, end, stride } => {
                            self.out.push('r');
                            self.atoms(&[*start, *end, *stride]);
                        }
                    }
                }
            }
            Exp::Update {
                array,
                indices,
                value,
            } => {
                self.out.push_str("update ");
                self.var(*array);
                self.atoms(indices);
                self.out.push('=');
                self.atom(value);
            }
            Exp::Transpose(a) | Exp::Flatten(a) | Exp::Reverse(a) => {
                let name = super::walk::node_kind(exp);
                let _ = write!(self.out, "{name} ");
                self.var(*a);
            }
            Exp::Unflatten { array, rows, cols } => {
                self.out.push_str("unflatten ");
                self.var(*array);
                self.atoms(&[*rows, *cols]);
            }
            Exp::Rotate { array, amount } => {
                self.out.push_str("rotate ");
                self.var(*array);
                self.atom(amount);
            }
            Exp::Concat(vs) => {
                self.out.push_str("concat ");
                self.vars(vs);
            }
        }
    }
}
