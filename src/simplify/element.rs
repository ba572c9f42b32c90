//! One element of a map, computed alone: a `core::ir::Function` in, the
//! same function out where `let e = ys[k]`, with `ys` made by a `map` read
//! nowhere else, becomes the map's function applied to element `k` of its
//! arguments, and the map is gone.
//!
//! Only where that changes no error: the map's arguments provably have its
//! width as outer size and its function cannot fail, so the map never
//! stopped the program; the arguments have the outer size of `ys`, so
//! indexing them at `k` (at the place and with the check of `ys[k]`) fails
//! where and as `ys[k]` did. Futhark's `fusion3`,
//! `(map f (replicate 5 arr))[0]`, becomes `f arr` (`fold` then indexes the
//! `replicate`). The function's statements move out of the map, which is
//! dropped, so every variable is still bound once.

use super::facts::Facts;
use super::walk::{nested_bodies_mut, use_counts};
use crate::core::ir::{Body, Exp, Function, SoacKind, Stm, VarId};
use std::collections::{HashMap, HashSet};

pub fn run(f: &mut Function, facts: &Facts) -> bool {
    let uses = use_counts(f, 1);
    let mut changed = false;
    body(&mut f.body, facts, &uses, &mut changed);
    changed
}

fn body(b: &mut Body, facts: &Facts, uses: &HashMap<VarId, u32>, changed: &mut bool) {
    for stm in &mut b.stms {
        for nested in nested_bodies_mut(&mut stm.exp) {
            body(nested, facts, uses, changed);
        }
    }
    // Maps whose one result is read once, and only as an element or row.
    let mut maps: HashMap<VarId, usize> = HashMap::new();
    for (at, stm) in b.stms.iter().enumerate() {
        let Exp::Soac(soac) = &stm.exp else { continue };
        let (SoacKind::Map(lam), [y]) = (&soac.kind, &stm.pat[..]) else {
            continue;
        };
        if uses.get(&y.id) == Some(&1)
            && lam.params.len() == soac.args.len()
            && lam.body.result.len() == 1
            && facts.fits_here(soac.label)
            && !facts.body_may_fail(&lam.body, true)
        {
            maps.insert(y.id, at);
        }
    }
    if maps.is_empty() {
        return;
    }
    let mut taken: HashMap<usize, Vec<Stm>> = HashMap::new();
    let mut dropped: HashSet<usize> = HashSet::new();
    for at in 0..b.stms.len() {
        let (array, k, checked) = match &b.stms[at].exp {
            Exp::Index {
                array,
                indices,
                checked,
            } if indices.len() == 1 => (*array, indices[0], *checked),
            _ => continue,
        };
        let Some(&map_at) = maps.get(&array) else {
            continue;
        };
        let [e] = &b.stms[at].pat[..] else { continue };
        let (e, loc) = (e.clone(), b.stms[at].loc);
        let Exp::Soac(soac) = b.stms[map_at].exp.clone() else {
            continue;
        };
        let SoacKind::Map(lam) = soac.kind else {
            continue;
        };
        let mut stms: Vec<Stm> = lam
            .params
            .into_iter()
            .zip(soac.args)
            .map(|(p, a)| Stm {
                pat: vec![p],
                exp: Exp::Index {
                    array: a,
                    indices: vec![k],
                    checked,
                },
                loc,
            })
            .collect();
        stms.extend(lam.body.stms);
        stms.push(Stm {
            pat: vec![e],
            exp: Exp::Atom(lam.body.result[0]),
            loc,
        });
        taken.insert(at, stms);
        maps.remove(&array);
        dropped.insert(map_at);
        *changed = true;
    }
    if taken.is_empty() {
        return;
    }
    let old = std::mem::take(&mut b.stms);
    for (at, stm) in old.into_iter().enumerate() {
        match taken.remove(&at) {
            Some(stms) => b.stms.extend(stms),
            None if dropped.contains(&at) => {}
            None => b.stms.push(stm),
        }
    }
}
