//! Dead-code elimination: a backward walk that drops statements none of
//! whose results are read, unless they can stop the program (an index out
//! of range, a division by zero, a failed assertion must still happen), and
//! drops the unread results of an `if`.

use super::facts::Facts;
use super::walk::{exp_atoms, nested_bodies_mut};
use crate::core::ir::{Atom, Body, Exp, Function, VarId};
use std::collections::HashSet;

pub fn run(f: &mut Function, facts: &Facts) -> bool {
    let mut dce = Dce {
        facts,
        live: HashSet::new(),
        changed: false,
    };
    dce.body(&mut f.body);
    dce.changed
}

struct Dce<'a> {
    facts: &'a Facts,
    live: HashSet<VarId>,
    changed: bool,
}

impl Dce<'_> {
    fn mark(&mut self, a: &Atom) {
        if let Atom::Var(v) = a {
            self.live.insert(*v);
        }
    }

    fn body(&mut self, body: &mut Body) {
        for a in &body.result {
            if let Atom::Var(v) = a {
                self.live.insert(*v);
            }
        }
        let stms = std::mem::take(&mut body.stms);
        let mut kept = Vec::with_capacity(stms.len());
        for mut stm in stms.into_iter().rev() {
            let read: Vec<bool> = stm.pat.iter().map(|p| self.live.contains(&p.id)).collect();
            let any_read = read.iter().any(|r| *r);
            if !any_read && !self.facts.may_fail(&stm) {
                self.changed = true;
                continue;
            }
            if let Exp::If {
                then_body,
                else_body,
                ..
            } = &mut stm.exp
            {
                let same_len =
                    then_body.result.len() == read.len() && else_body.result.len() == read.len();
                if any_read && same_len && read.iter().any(|r| !*r) {
                    self.changed = true;
                    let mut keep = read.iter().copied();
                    then_body.result.retain(|_| keep.next().unwrap_or(true));
                    let mut keep = read.iter().copied();
                    else_body.result.retain(|_| keep.next().unwrap_or(true));
                    let mut keep = read.iter().copied();
                    stm.pat.retain(|_| keep.next().unwrap_or(true));
                }
            }
            for nested in nested_bodies_mut(&mut stm.exp) {
                self.body(nested);
            }
            exp_atoms(&stm.exp, |a| self.mark(a));
            kept.push(stm);
        }
        kept.reverse();
        body.stms = kept;
    }
}
