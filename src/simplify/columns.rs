//! Removal of unused tuple components. Tuples are already flattened in the
//! core IR (an array of tuples is one array per component), so a component
//! nobody reads shows up as a `map` result nobody reads, or as an array
//! argument whose lambda parameter is unused. Dropping both means an unused
//! struct-of-arrays column is never computed nor loaded. A result that just
//! passes a parameter through (`map (\a b -> (a, b+1)) xs ys` gives `xs`
//! back) becomes a copy of the argument.

use super::facts::{same_atom, Facts};
use super::walk::{nested_bodies_mut, rename_in_body};
use crate::core::free::free_in_body;
use crate::core::ir::{Atom, Body, Exp, Function, SoacKind, Stm, VarId};
use std::collections::{HashMap, HashSet};

pub fn run(f: &mut Function, facts: &Facts) -> bool {
    let uses = super::walk::use_counts(f, 1);
    let mut c = Columns {
        facts,
        uses,
        changed: false,
    };
    c.body(&mut f.body);
    c.changed
}

struct Columns<'a> {
    facts: &'a Facts,
    uses: HashMap<VarId, u32>,
    changed: bool,
}

impl Columns<'_> {
    fn body(&mut self, body: &mut Body) {
        let stms = std::mem::take(&mut body.stms);
        let mut out = Vec::with_capacity(stms.len());
        for mut stm in stms {
            for nested in nested_bodies_mut(&mut stm.exp) {
                self.body(nested);
            }
            let copies = self.map(&mut stm);
            out.push(stm);
            out.extend(copies);
        }
        body.stms = out;
    }

    /// Narrows a `map` statement; returns the copies that replace its
    /// pass-through results (to follow the statement).
    fn map(&mut self, stm: &mut Stm) -> Vec<Stm> {
        let can_fail = self.facts.may_fail(stm);
        let Exp::Soac(soac) = &mut stm.exp else {
            return Vec::new();
        };
        let SoacKind::Map(lam) = &mut soac.kind else {
            return Vec::new();
        };
        let n = stm.pat.len();
        if lam.ret.len() != n || lam.body.result.len() != n || lam.params.len() != soac.args.len() {
            return Vec::new();
        }
        let read: Vec<bool> = stm
            .pat
            .iter()
            .map(|p| self.uses.get(&p.id).copied().unwrap_or(0) > 0)
            .collect();
        // A result equal to parameter j is argument j itself.
        let passes: Vec<Option<VarId>> = lam
            .body
            .result
            .iter()
            .map(|r| {
                let j = lam
                    .params
                    .iter()
                    .position(|p| same_atom(r, &Atom::Var(p.id)))?;
                soac.args.get(j).copied()
            })
            .collect();
        let computed_read = (0..n).any(|i| read[i] && passes[i].is_none());
        let mut keep: Vec<bool> = (0..n)
            .map(|i| read[i] && (passes[i].is_none() || (can_fail && !computed_read)))
            .collect();
        if can_fail && n > 0 && !keep.iter().any(|k| *k) {
            // The map must stay to fail as before: keep one result.
            keep[0] = true;
        }
        // With nothing kept the map is left without results, for
        // dead-code elimination to remove.
        let mut copies = Vec::new();
        if keep.iter().any(|k| !k) {
            self.changed = true;
            let mut new_pat = Vec::new();
            let mut new_ret = Vec::new();
            let mut new_res = Vec::new();
            for (i, p) in std::mem::take(&mut stm.pat).into_iter().enumerate() {
                if keep[i] {
                    new_pat.push(p);
                    new_ret.push(lam.ret[i]);
                    new_res.push(lam.body.result[i]);
                } else if let (true, Some(arg)) = (read[i], passes[i]) {
                    copies.push(Stm {
                        pat: vec![p],
                        exp: Exp::Atom(Atom::Var(arg)),
                        loc: stm.loc,
                    });
                }
            }
            stm.pat = new_pat;
            lam.ret = new_ret;
            lam.body.result = new_res;
        }
        // An array given twice is read once: the second parameter becomes
        // the first, and is then unused.
        for j in 1..soac.args.len() {
            if let Some(i) = soac.args[..j].iter().position(|a| *a == soac.args[j]) {
                let (pi, pj) = (lam.params[i].id, lam.params[j].id);
                rename_in_body(&mut lam.body, pj, pi);
            }
        }
        // Arguments whose parameter is unused, when dropping them loses no
        // size check (their outer size is known to be the width, or is
        // checked by a copy of the same array that stays).
        let free: HashSet<VarId> = free_in_body(&lam.body).into_iter().collect();
        let all_fit = self.facts.fits_here(soac.label);
        let droppable: Vec<bool> = lam
            .params
            .iter()
            .zip(&soac.args)
            .enumerate()
            .map(|(j, (p, a))| {
                !free.contains(&p.id)
                    && (all_fit
                        || soac.args[..j].contains(a)
                        || self
                            .facts
                            .outer(*a)
                            .is_some_and(|o| same_atom(&o, &soac.width)))
            })
            .collect();
        let mut drop = droppable.clone();
        if !drop.is_empty() && drop.iter().all(|d| *d) {
            // Keep one array: a map over nothing is not worth the surprise.
            drop[0] = false;
        }
        if drop.iter().any(|d| *d) {
            self.changed = true;
            let mut i = 0;
            lam.params.retain(|_| {
                i += 1;
                !drop[i - 1]
            });
            let mut i = 0;
            soac.args.retain(|_| {
                i += 1;
                !drop[i - 1]
            });
        }
        copies
    }
}
