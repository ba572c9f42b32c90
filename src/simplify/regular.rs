//! Rows of an array all have one size: a `core::ir::Function` in, the same
//! function out where
//!
//! - an `assert_eq_sizes`, the only statement of a `map`'s function that
//!   can fail, in a function that returns its parameters and otherwise
//!   only reads sizes, whose sides are bound outside the function or are
//!   sizes of row parameters (`size x d` of rows of `xs` is `size xs (d + 1)`, the
//!   same for every row of a stored array), moves before the map under
//!   `if 0 < width`: the map's arguments provably fit its width, so
//!   element 0 runs that assertion first and fails exactly when the moved
//!   one does, and never when there are no elements;
//!
//! - a `map` that cannot fail and returns its parameters is its arguments,
//!   one name for each (`columns` keeps such a map when its results are
//!   rows, as storing rows may find them irregular; rows of a stored array
//!   are not).
//!
//! `map2 (\a b -> zip a b) xss yss` then is two names for `xss` and `yss`
//! (Futhark's `fuse-across-transpose2`: no loop nest for the zip).

use super::facts::Facts;
use super::walk::nested_bodies_mut;
use crate::core::fresh::Fresh;
use crate::core::ir::{Atom, BinOp, Body, Exp, Function, SoacKind, Stm, Type, VarId};
use crate::types::{Const, ScalarType};
use std::collections::HashMap;

pub fn run(f: &mut Function, facts: &Facts, fresh: &mut Fresh) -> bool {
    let mut r = Regular {
        facts,
        fresh,
        changed: false,
    };
    r.body(&mut f.body);
    r.changed
}

struct Regular<'a> {
    facts: &'a Facts,
    fresh: &'a mut Fresh,
    changed: bool,
}

impl Regular<'_> {
    fn body(&mut self, body: &mut Body) {
        let stms = std::mem::take(&mut body.stms);
        let mut out = Vec::with_capacity(stms.len());
        for mut stm in stms {
            for nested in nested_bodies_mut(&mut stm.exp) {
                self.body(nested);
            }
            if let Some(guarded) = self.hoist_assertion(&mut stm) {
                out.extend(guarded);
            }
            match self.pass_through(&stm) {
                Some(names) => out.extend(names),
                None => out.push(stm),
            }
        }
        body.stms = out;
    }

    /// A map that cannot fail and returns its parameters is its arguments
    /// (rows of a stored array are regular, so storing them checks
    /// nothing): one name per result.
    fn pass_through(&mut self, stm: &Stm) -> Option<Vec<Stm>> {
        let Exp::Soac(soac) = &stm.exp else {
            return None;
        };
        let SoacKind::Map(lam) = &soac.kind else {
            return None;
        };
        if !self.facts.fits_here(soac.label)
            || !self.facts.is_nonneg(&soac.width)
            || lam.params.len() != soac.args.len()
            || lam.body.result.len() != stm.pat.len()
            || self.facts.body_may_fail(&lam.body, true)
        {
            return None;
        }
        let args: Option<Vec<VarId>> = lam
            .body
            .result
            .iter()
            .map(|r| {
                let j = lam
                    .params
                    .iter()
                    .position(|p| matches!(r, Atom::Var(v) if *v == p.id))?;
                Some(soac.args[j])
            })
            .collect();
        let names = stm
            .pat
            .iter()
            .zip(args?)
            .map(|(y, a)| Stm {
                pat: vec![y.clone()],
                exp: Exp::Atom(Atom::Var(a)),
                loc: stm.loc,
            })
            .collect();
        self.changed = true;
        Some(names)
    }

    /// Moves a map's first failing statement out when it is an invariant
    /// `assert_eq_sizes`; returns the guarded statements to put before it.
    fn hoist_assertion(&mut self, stm: &mut Stm) -> Option<Vec<Stm>> {
        let Exp::Soac(soac) = &mut stm.exp else {
            return None;
        };
        if !self.facts.fits_here(soac.label) {
            return None;
        }
        let width = soac.width;
        let SoacKind::Map(lam) = &mut soac.kind else {
            return None;
        };
        let at = lam.body.stms.iter().position(|s| self.facts.may_fail(s))?;
        let Exp::AssertEqSizes(a, b) = lam.body.stms[at].exp else {
            return None;
        };
        // Only where the map then returns its parameters and so goes away:
        // elsewhere the check stays in the map, whose body the loop-nest
        // passes match as written (a product's register blocks want the
        // row map alone in its iteration, not a guarded check beside it).
        let params: Vec<VarId> = lam.params.iter().map(|p| p.id).collect();
        let only_sizes_beside = lam
            .body
            .stms
            .iter()
            .enumerate()
            .all(|(i, s)| i == at || matches!(s.exp, Exp::Size { .. }));
        let returns_params = lam
            .body
            .result
            .iter()
            .all(|r| matches!(r, Atom::Var(v) if params.contains(v)));
        if !only_sizes_beside || !returns_params {
            return None;
        }
        // Each side is bound outside, or is `size x d` of a row parameter
        // `x` of `xs`: `size xs (d + 1)`, the same for every row.
        let rows: HashMap<VarId, VarId> = lam
            .params
            .iter()
            .zip(&soac.args)
            .filter(|(p, _)| matches!(p.ty, Type::Array(..)))
            .map(|(p, &a)| (p.id, a))
            .collect();
        let mut inside: HashMap<VarId, Option<(VarId, usize)>> =
            lam.params.iter().map(|p| (p.id, None)).collect();
        for s in &lam.body.stms[..at] {
            let size = match s.exp {
                Exp::Size { array, dim } => rows.get(&array).map(|&whole| (whole, dim + 1)),
                _ => None,
            };
            for p in &s.pat {
                inside.insert(p.id, size);
            }
        }
        let mut sizes = Vec::new();
        let mut side = |x: Atom| -> Option<Atom> {
            let Atom::Var(v) = x else { return Some(x) };
            let Some(&size) = inside.get(&v) else {
                return Some(x);
            };
            let (whole, dim) = size?;
            let n = self.fresh.var("n", Type::Scalar(ScalarType::I64));
            let id = n.id;
            sizes.push((n, whole, dim));
            Some(Atom::Var(id))
        };
        let (a, b) = (side(a)?, side(b)?);
        let mut assertion = lam.body.stms.remove(at);
        assertion.exp = Exp::AssertEqSizes(a, b);
        let loc = assertion.loc;
        let mut guarded: Vec<Stm> = sizes
            .into_iter()
            .map(|(n, array, dim)| Stm {
                pat: vec![n],
                exp: Exp::Size { array, dim },
                loc,
            })
            .collect();
        guarded.push(assertion);
        let nonempty = self.fresh.var("nonempty", Type::Scalar(ScalarType::Bool));
        self.changed = true;
        Some(vec![
            Stm {
                pat: vec![nonempty.clone()],
                exp: Exp::BinOp(BinOp::Lt, Atom::Const(Const::I64(0)), width),
                loc,
            },
            Stm {
                pat: Vec::new(),
                exp: Exp::If {
                    cond: Atom::Var(nonempty.id),
                    then_body: Body {
                        stms: guarded,
                        result: Vec::new(),
                    },
                    else_body: Body {
                        stms: Vec::new(),
                        result: Vec::new(),
                    },
                },
                loc,
            },
        ])
    }
}
