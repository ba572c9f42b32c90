//! Inlining of bindings into their only place of use. In A-normal form the
//! place a binding can move to is the one branch of an `if` that reads it:
//! there it runs only when needed, and a producer sunk next to its consumer
//! can fuse with it (nothing fuses across an `if`). Bindings never move into
//! a lambda (a use there counts as many: it runs once per element), and
//! statements that can fail never move (the failure must still happen when
//! the other branch is taken).

use super::facts::Facts;
use super::walk::nested_bodies_mut;
use crate::core::free::{free_in_body, free_in_exp};
use crate::core::ir::{Atom, Body, Exp, Function, Stm, VarId};
use std::collections::hash_map::Entry;
use std::collections::HashMap;

pub fn run(f: &mut Function, facts: &Facts) -> bool {
    let mut s = Sinker {
        facts,
        changed: false,
    };
    s.body(&mut f.body);
    s.changed
}

/// Where the reads of a variable are, among the statements of one body.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Site {
    /// Only in statement `k` itself (its condition or a lambda).
    At(usize),
    /// Only in one branch of the `if` at statement `k`.
    Branch(usize, bool),
    Many,
}

struct Sinker<'a> {
    facts: &'a Facts,
    changed: bool,
}

fn note(sites: &mut HashMap<VarId, Site>, v: VarId, s: Site) {
    match sites.entry(v) {
        Entry::Vacant(e) => {
            e.insert(s);
        }
        Entry::Occupied(mut e) => {
            if *e.get() != s {
                e.insert(Site::Many);
            }
        }
    }
}

impl Sinker<'_> {
    fn body(&mut self, body: &mut Body) {
        for stm in &mut body.stms {
            for nested in nested_bodies_mut(&mut stm.exp) {
                self.body(nested);
            }
        }
        let n = body.stms.len();
        let mut sites: HashMap<VarId, Site> = HashMap::new();
        for a in &body.result {
            if let Atom::Var(v) = a {
                note(&mut sites, *v, Site::Many);
            }
        }
        let mut dest: Vec<Option<(usize, bool)>> = vec![None; n];
        for k in (0..n).rev() {
            let stm = &body.stms[k];
            dest[k] = self.target(stm, &sites);
            match (dest[k], &stm.exp) {
                (Some((j, b)), _) => {
                    for v in free_in_exp(&stm.exp) {
                        note(&mut sites, v, Site::Branch(j, b));
                    }
                }
                (
                    None,
                    Exp::If {
                        cond,
                        then_body,
                        else_body,
                    },
                ) => {
                    if let Atom::Var(c) = cond {
                        note(&mut sites, *c, Site::At(k));
                    }
                    for v in free_in_body(then_body) {
                        note(&mut sites, v, Site::Branch(k, true));
                    }
                    for v in free_in_body(else_body) {
                        note(&mut sites, v, Site::Branch(k, false));
                    }
                }
                (None, exp) => {
                    for v in free_in_exp(exp) {
                        note(&mut sites, v, Site::At(k));
                    }
                }
            }
        }
        if dest.iter().all(Option::is_none) {
            return;
        }
        self.changed = true;
        let mut pending: HashMap<usize, (Vec<Stm>, Vec<Stm>)> = HashMap::new();
        let mut out = Vec::with_capacity(n);
        for (k, mut stm) in std::mem::take(&mut body.stms).into_iter().enumerate() {
            if let (
                Some((mut to_then, mut to_else)),
                Exp::If {
                    then_body,
                    else_body,
                    ..
                },
            ) = (pending.remove(&k), &mut stm.exp)
            {
                to_then.append(&mut then_body.stms);
                then_body.stms = to_then;
                to_else.append(&mut else_body.stms);
                else_body.stms = to_else;
            }
            match dest[k] {
                Some((j, true)) => pending.entry(j).or_default().0.push(stm),
                Some((j, false)) => pending.entry(j).or_default().1.push(stm),
                None => out.push(stm),
            }
        }
        body.stms = out;
    }

    /// The branch `stm` can move into: the one place its results are read.
    fn target(&self, stm: &Stm, sites: &HashMap<VarId, Site>) -> Option<(usize, bool)> {
        if stm.pat.is_empty() || self.facts.may_fail(stm) {
            return None;
        }
        let mut target = None;
        for p in &stm.pat {
            match sites.get(&p.id) {
                None => {}
                Some(Site::Branch(j, b)) if target.is_none_or(|t| t == (*j, *b)) => {
                    target = Some((*j, *b));
                }
                Some(_) => return None,
            }
        }
        target
    }
}
