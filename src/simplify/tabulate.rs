//! Reads at the iteration index become streams: a `core::ir::Function` in,
//! the same function out where a `map` over `iota n` whose function binds
//! `let e = a[i]` (`i` the element of the `iota`, `a` an array from outside
//! of outer size `n`) streams `a` instead, with `e` its parameter.
//!
//! `map (\i -> xs[i]) (iota n)` is then `map (\e -> e) xs`, which
//! `columns` turns into a copy of `xs`, and a gather that fusion would see
//! as reading `a` whole (a fusion-preventing edge) is a streamed argument
//! that can fuse with `a`'s producer (Futhark's `tabulate0`). The map
//! checks that `a` has `n` rows, which is provably so, and `i` is below
//! `n`, so the index never failed: the errors are unchanged.

use super::facts::{same_atom, Facts};
use super::walk::{nested_bodies, nested_bodies_mut};
use crate::core::free::free_in_body;
use crate::core::ir::{Atom, Body, Exp, Function, Lambda, SoacKind, VarId};
use std::collections::HashSet;

pub fn run(f: &mut Function, facts: &Facts) -> bool {
    let mut iotas = HashSet::new();
    collect_iotas(&f.body, &mut iotas);
    if iotas.is_empty() {
        return false;
    }
    let mut changed = false;
    body(&mut f.body, facts, &iotas, &mut changed);
    changed
}

/// Variables bound to an `iota` anywhere in the function (ids are unique).
fn collect_iotas(body: &Body, out: &mut HashSet<VarId>) {
    for stm in &body.stms {
        if let (Exp::Iota(_), [v]) = (&stm.exp, &stm.pat[..]) {
            out.insert(v.id);
        }
        for nested in nested_bodies(&stm.exp) {
            collect_iotas(nested, out);
        }
    }
}

fn body(b: &mut Body, facts: &Facts, iotas: &HashSet<VarId>, changed: &mut bool) {
    for stm in &mut b.stms {
        for nested in nested_bodies_mut(&mut stm.exp) {
            body(nested, facts, iotas, changed);
        }
        if let Exp::Soac(soac) = &mut stm.exp {
            if let SoacKind::Map(lam) = &mut soac.kind {
                *changed |= stream_reads(soac.width, &mut soac.args, lam, facts, iotas);
            }
        }
    }
}

/// Turns the lambda's top-level `let e = a[i]` into a parameter `e`
/// streaming `a`, where `i` is the parameter of an `iota` argument and `a`
/// has the map's width as outer size.
fn stream_reads(
    width: Atom,
    args: &mut Vec<VarId>,
    lam: &mut Lambda,
    facts: &Facts,
    iotas: &HashSet<VarId>,
) -> bool {
    if lam.params.len() != args.len() {
        return false;
    }
    let index_params: HashSet<VarId> = lam
        .params
        .iter()
        .zip(args.iter())
        .filter(|(_, a)| iotas.contains(a))
        .map(|(p, _)| p.id)
        .collect();
    if index_params.is_empty() {
        return false;
    }
    let params: HashSet<VarId> = lam.params.iter().map(|p| p.id).collect();
    let outside: HashSet<VarId> = free_in_body(&lam.body)
        .into_iter()
        .filter(|v| !params.contains(v))
        .collect();
    let mut changed = false;
    let stms = std::mem::take(&mut lam.body.stms);
    for stm in stms {
        if let (Exp::Index { array, indices, .. }, [e]) = (&stm.exp, &stm.pat[..]) {
            if let [Atom::Var(i)] = indices[..] {
                if index_params.contains(&i)
                    && outside.contains(array)
                    && facts.outer(*array).is_some_and(|o| same_atom(&o, &width))
                {
                    args.push(*array);
                    lam.params.push(e.clone());
                    changed = true;
                    continue;
                }
            }
        }
        lam.body.stms.push(stm);
    }
    changed
}
