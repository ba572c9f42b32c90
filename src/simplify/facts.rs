//! What the passes may assume about a function: which statements can stop
//! the program (and so must never be deleted or moved to where they might
//! not run, or run where they did not), which sizes are known not to be
//! negative, and which array has which outer size.
//!
//! Facts are true of values, and `VarId`s are unique, so one table serves a
//! whole function. The exception is `assert_eq_sizes a b`: it makes `a == b`
//! true only after it, so a SOAC whose arguments are known to fit its width
//! only thanks to such an assertion is recorded as verified "in place" and
//! must not be hoisted above it.

use crate::core::ir::{Atom, Body, Exp, Function, LoopForm, SoacId, SoacKind, Stm, VarId};
use crate::types::{Const, ScalarType};
use std::collections::{HashMap, HashSet};

/// An atom as a hashable key (floats by their bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AtomKey {
    Var(u32),
    Const(ScalarType, u64),
}

pub fn atom_key(a: &Atom) -> AtomKey {
    match a {
        Atom::Var(v) => AtomKey::Var(v.0),
        Atom::Const(c) => AtomKey::Const(c.scalar_type(), const_bits(*c)),
    }
}

pub fn const_bits(c: Const) -> u64 {
    match c {
        Const::F16(x) => x.0 as u64,
        Const::F32(x) => x.to_bits() as u64,
        Const::F64(x) => x.to_bits(),
        other => other.as_i128().unwrap_or(0) as u64,
    }
}

/// Same value for certain: the same variable or bitwise the same constant.
pub fn same_atom(a: &Atom, b: &Atom) -> bool {
    atom_key(a) == atom_key(b)
}

#[derive(Default)]
pub struct Facts {
    /// Outer size of an array, from the statement that made it or a `size`.
    outer: HashMap<VarId, Atom>,
    /// `i64` variables known to be at least zero (sizes).
    nonneg: HashSet<VarId>,
    /// SOACs whose arrays all have the width as outer size, without help
    /// from assertions: they fit wherever they are moved.
    fits_anywhere: HashSet<SoacId>,
    /// SOACs whose arrays fit the width where the SOAC stands.
    fits_here: HashSet<SoacId>,
}

impl Facts {
    pub fn collect(f: &Function) -> Facts {
        let mut facts = Facts::default();
        for sp in &f.size_params {
            facts.nonneg.insert(sp.var.id);
            for &(p, d) in &sp.uses {
                if let (Some(param), 0) = (f.params.get(p), d) {
                    facts.outer.entry(param.id).or_insert(Atom::Var(sp.var.id));
                }
            }
        }
        let mut asserted = Vec::new();
        facts.body(&f.body, &mut asserted);
        facts
    }

    fn body(&mut self, body: &Body, asserted: &mut Vec<(AtomKey, AtomKey)>) {
        let mark = asserted.len();
        for stm in &body.stms {
            self.stm(stm, asserted);
        }
        asserted.truncate(mark);
    }

    fn stm(&mut self, stm: &Stm, asserted: &mut Vec<(AtomKey, AtomKey)>) {
        let first = stm.pat.first().map(|v| v.id);
        match &stm.exp {
            Exp::Size { array, dim: 0 } => {
                if let Some(x) = first {
                    self.outer.entry(*array).or_insert(Atom::Var(x));
                    self.nonneg.insert(x);
                }
            }
            Exp::Size { .. } => {
                if let Some(x) = first {
                    self.nonneg.insert(x);
                }
            }
            Exp::Iota(n) | Exp::Replicate { count: n, .. } => {
                if let Some(x) = first {
                    self.outer.insert(x, *n);
                }
            }
            Exp::ArrayLit { items, .. } => {
                if let Some(x) = first {
                    self.outer
                        .insert(x, Atom::Const(Const::I64(items.len() as i64)));
                }
            }
            Exp::AssertEqSizes(a, b) => {
                asserted.push((atom_key(a), atom_key(b)));
                for p in &stm.pat {
                    if self.is_nonneg(a) || self.is_nonneg(b) {
                        self.nonneg.insert(p.id);
                    }
                }
            }
            Exp::Soac(soac) => {
                let width = atom_key(&soac.width);
                let mut anywhere = true;
                let mut here = true;
                for arg in &soac.args {
                    let Some(outer) = self.outer.get(arg).map(atom_key) else {
                        anywhere = false;
                        here = false;
                        break;
                    };
                    if outer != width {
                        anywhere = false;
                        here &= asserted
                            .iter()
                            .any(|&(a, b)| (a, b) == (outer, width) || (b, a) == (outer, width));
                    }
                }
                if anywhere {
                    self.fits_anywhere.insert(soac.label);
                }
                if here {
                    self.fits_here.insert(soac.label);
                }
                let outer: Vec<Option<Atom>> = match &soac.kind {
                    SoacKind::Map(_) | SoacKind::Scan { .. } | SoacKind::ScanRight { .. } => {
                        vec![Some(soac.width); stm.pat.len()]
                    }
                    SoacKind::Hist {
                        bins, dest: None, ..
                    } => vec![Some(*bins); stm.pat.len()],
                    SoacKind::Hist {
                        dest: Some(dest), ..
                    }
                    | SoacKind::Scatter { dest, .. } => {
                        dest.iter().map(|d| self.outer.get(d).copied()).collect()
                    }
                    SoacKind::Reduce { .. }
                    | SoacKind::Filter { .. }
                    | SoacKind::Partition { .. } => Vec::new(),
                };
                for (p, o) in stm.pat.iter().zip(outer) {
                    if let Some(o) = o {
                        self.outer.insert(p.id, o);
                    }
                }
            }
            Exp::Reverse(a) | Exp::Rotate { array: a, .. } | Exp::Update { array: a, .. } => {
                if let (Some(x), Some(o)) = (first, self.outer.get(a).copied()) {
                    self.outer.insert(x, o);
                }
            }
            Exp::Unflatten { rows, .. } => {
                if let Some(x) = first {
                    self.outer.insert(x, *rows);
                }
            }
            _ => {}
        }
        for nested in super::walk::nested_bodies(&stm.exp) {
            self.body(nested, asserted);
        }
    }

    pub fn is_nonneg(&self, a: &Atom) -> bool {
        match a {
            Atom::Var(v) => self.nonneg.contains(v),
            Atom::Const(c) => c.as_i128().is_some_and(|v| v >= 0),
        }
    }

    /// Whether every array of SOAC `label` has its width as outer size where
    /// the SOAC stands.
    pub fn fits_here(&self, label: SoacId) -> bool {
        self.fits_here.contains(&label)
    }

    /// The outer size of `array`, if some statement tells it.
    pub fn outer(&self, array: VarId) -> Option<Atom> {
        self.outer.get(&array).copied()
    }

    /// Whether `stm` can stop the program where it stands.
    pub fn may_fail(&self, stm: &Stm) -> bool {
        self.exp_may_fail(stm, true)
    }

    /// Whether `stm` can stop the program if moved out of the lambda it is in
    /// (past assertions that precede it there).
    pub fn may_fail_moved(&self, stm: &Stm) -> bool {
        self.exp_may_fail(stm, false)
    }

    pub fn body_may_fail(&self, body: &Body, in_place: bool) -> bool {
        body.stms.iter().any(|s| self.exp_may_fail(s, in_place))
    }

    fn exp_may_fail(&self, stm: &Stm, in_place: bool) -> bool {
        match &stm.exp {
            Exp::Atom(_) | Exp::UnOp(..) | Exp::Convert(..) | Exp::Fma(..) | Exp::Size { .. } => {
                false
            }
            Exp::BinOp(op, a, b) => {
                use crate::core::ir::BinOp::*;
                if !matches!(op, Div | Mod | Quot | Rem) {
                    return false;
                }
                let float = match (a, b) {
                    (Atom::Const(c), _) | (_, Atom::Const(c)) => c.scalar_type().is_float(),
                    _ => stm.pat.first().is_some_and(|p| p.ty.elem().is_float()),
                };
                let nonzero_divisor =
                    matches!(b, Atom::Const(c) if c.as_i128().is_some_and(|v| v != 0));
                !(float || nonzero_divisor)
            }
            Exp::If {
                then_body,
                else_body,
                ..
            } => self.body_may_fail(then_body, in_place) || self.body_may_fail(else_body, in_place),
            Exp::Index { .. } => true,
            Exp::Iota(n) | Exp::Replicate { count: n, .. } => !self.is_nonneg(n),
            Exp::ArrayLit { elem, items } => elem.rank() > 0 && items.len() > 1,
            Exp::AssertEqSizes(a, b) => !same_atom(a, b),
            Exp::Assert(c, _) => !matches!(c, Atom::Const(Const::Bool(true))),
            Exp::Soac(soac) => {
                let fits = if in_place {
                    self.fits_here.contains(&soac.label)
                } else {
                    self.fits_anywhere.contains(&soac.label)
                };
                // Array-valued rows may disagree in shape from one
                // element to the next: only scalar rows are known safe.
                let scalar_rows = stm.pat.iter().all(|p| p.ty.rank() <= 1);
                let extra = match &soac.kind {
                    SoacKind::Hist { bins, dest, .. } => !self.is_nonneg(bins) || dest.is_some(),
                    SoacKind::Scatter { .. } => true,
                    _ => false,
                };
                let body_fails = soac.kind.lambda().is_some_and(|lam| {
                    lam.ret.iter().any(|t| t.rank() > 0) || self.body_may_fail(&lam.body, in_place)
                });
                !fits || !self.is_nonneg(&soac.width) || !scalar_rows || extra || body_fails
            }
            // A `for` loop ends; a `while` loop might not, and a program
            // that runs forever must still do so.
            Exp::Loop { form, body, .. } => match form {
                LoopForm::For { .. } => self.body_may_fail(body, in_place),
                LoopForm::While { .. } => true,
            },
            Exp::Transpose(_) | Exp::Flatten(_) | Exp::Reverse(_) | Exp::Rotate { .. } => false,
            Exp::Concat(_) => stm.pat.iter().any(|p| p.ty.rank() > 1),
            Exp::Slice { .. } | Exp::Update { .. } | Exp::Unflatten { .. } => true,
        }
    }
}
