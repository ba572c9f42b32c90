//! A flattened map nest of several inner maps or results as one flat map: a
//! `Body` in, a `Body` out, after `reshape::flatten_nests` (under `greedy`
//! and `ilp`).
//!
//! `let (as, bs) = map (\r -> (map g r, map h r)) xss` whose results are
//! read only through `flatten as` and `flatten bs` (`WithAccs/issue2452`:
//! the indices and values of a scatter) is
//! `let (fa, fb) = map (\x -> (g x, h x)) (flatten xss)`: each row's
//! elements in row-major order, the order of the flat arrays, so their
//! consumers (a scatter among them) stream them and fuse with the map into
//! one loop, where the nest's rows could only be read whole. `flatten` of a
//! stored array is a view, so nothing more is read.
//!
//! Sound where the first error is the same: the nest ran `g` over a row,
//! then `h` over it; the flat map runs `g` then `h` per element. So at most
//! one inner function may fail. Every inner map streams the one row of the
//! one input (its width that row's size: every row of a stored matrix has
//! its inner size), and its function reads nothing defined in the outer
//! function but its own parameters. Not where a SOAC makes the input (the
//! nest could fuse with it as row maps; the flat map could not), nor where
//! a result is read other than by one `flatten`.

use super::permute::{cannot_fail, definers, use_counts};
use super::reshape::width_asked;
use crate::core::free::free_in_body;
use crate::core::fresh::Fresh;
use crate::core::ir::{Atom, Body, Exp, Lambda, Soac, SoacKind, SrcLoc, Stm, Type, Var, VarId};
use crate::types::ScalarType;
use std::collections::{HashMap, HashSet};

/// `body` with each nest of the form above made one flat map.
pub fn flat_row_maps(body: &Body, fresh: &mut Fresh) -> Body {
    let uses = use_counts(body);
    let definer = definers(body);
    // Nest statement -> its `flatten` statements, one per result in order.
    let mut nests: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, stm) in body.stms.iter().enumerate() {
        let Exp::Soac(soac) = &stm.exp else { continue };
        if inner_maps(body, &definer, soac).is_none() {
            continue;
        }
        let flattens: Option<Vec<usize>> = stm
            .pat
            .iter()
            .map(|v| {
                if uses.get(&v.id) != Some(&1) {
                    return None;
                }
                body.stms
                    .iter()
                    .position(|s| matches!(s.exp, Exp::Flatten(a) if a == v.id))
            })
            .collect();
        if let Some(f) = flattens {
            nests.insert(i, f);
        }
    }
    if nests.is_empty() {
        return body.clone();
    }
    let dropped: HashSet<usize> = nests.values().flatten().copied().collect();
    let mut widths: HashMap<VarId, Atom> = HashMap::new();
    let mut stms = Vec::with_capacity(body.stms.len() + 2 * nests.len());
    for (i, stm) in body.stms.iter().enumerate() {
        if dropped.contains(&i) {
            continue;
        }
        if let Some(asked) = width_asked(stm, &widths) {
            stms.push(asked);
            continue;
        }
        let (Some(flattens), Exp::Soac(soac)) = (nests.get(&i), &stm.exp) else {
            stms.push(stm.clone());
            continue;
        };
        let Some(maps) = inner_maps(body, &definer, soac) else {
            stms.push(stm.clone());
            continue;
        };
        let Some(lam) = merged(&maps, fresh, stm.loc) else {
            stms.push(stm.clone());
            continue;
        };
        let pat: Vec<Var> = flattens
            .iter()
            .map(|&f| body.stms[f].pat[0].clone())
            .collect();
        let flat = fresh.var("flat", maps.row.ty);
        let n = fresh.var("n", Type::Scalar(ScalarType::I64));
        let w = Atom::Var(n.id);
        for v in &pat {
            widths.insert(v.id, w);
        }
        stms.push(Stm {
            pat: vec![flat.clone()],
            exp: Exp::Flatten(soac.args[0]),
            loc: stm.loc,
        });
        stms.push(Stm {
            pat: vec![n],
            exp: Exp::Size {
                array: flat.id,
                dim: 0,
            },
            loc: stm.loc,
        });
        stms.push(Stm {
            pat,
            exp: Exp::Soac(Soac {
                label: soac.label,
                width: w,
                kind: SoacKind::Map(lam),
                args: vec![flat.id],
                sequential: false,
            }),
            loc: stm.loc,
        });
    }
    Body {
        stms,
        result: body.result.clone(),
    }
}

/// A nest of the form above, taken apart.
struct Rows<'a> {
    /// The outer function's one parameter: a row of the input.
    row: &'a Var,
    /// The inner maps' functions, in order, with their results' names.
    inner: Vec<(&'a Lambda, &'a [Var])>,
    /// The outer function's results.
    result: &'a [Atom],
}

fn inner_maps<'a>(
    body: &Body,
    definer: &HashMap<VarId, usize>,
    soac: &'a Soac,
) -> Option<Rows<'a>> {
    let SoacKind::Map(lam) = &soac.kind else {
        return None;
    };
    let ([input], [row]) = (&soac.args[..], &lam.params[..]) else {
        return None;
    };
    let made_by_soac = definer
        .get(input)
        .is_some_and(|&d| matches!(body.stms[d].exp, Exp::Soac(_)));
    if soac.sequential || made_by_soac || row.ty.rank() != 1 {
        return None;
    }
    let mut sizes: HashSet<VarId> = HashSet::new();
    let mut inner = Vec::new();
    for stm in &lam.body.stms {
        match &stm.exp {
            Exp::Size { array, dim: 0 } if *array == row.id => {
                sizes.extend(stm.pat.iter().map(|v| v.id));
            }
            Exp::Soac(map) => {
                let SoacKind::Map(g) = &map.kind else {
                    return None;
                };
                let width_is_row = matches!(map.width, Atom::Var(w) if sizes.contains(&w));
                let scalar = |v: &Var| matches!(v.ty, Type::Scalar(_));
                let own = |v: &VarId| {
                    g.params.iter().any(|p| p.id == *v)
                        || !(lam
                            .body
                            .stms
                            .iter()
                            .any(|s| s.pat.iter().any(|p| p.id == *v))
                            || *v == row.id)
                };
                if map.sequential
                    || !width_is_row
                    || map.args.is_empty()
                    || map.args.iter().any(|a| *a != row.id)
                    || !g.params.iter().all(scalar)
                    || !g.ret.iter().all(|t| matches!(t, Type::Scalar(_)))
                    || !free_in_body(&g.body).iter().all(own)
                {
                    return None;
                }
                inner.push((g, &stm.pat[..]));
            }
            _ => return None,
        }
    }
    // Every inner result returned once, and something to gain over
    // `reshape::flatten_nests` (one inner map with one result).
    let made: Vec<VarId> = inner
        .iter()
        .flat_map(|(_, pat)| pat.iter().map(|v| v.id))
        .collect();
    let returned = lam
        .body
        .result
        .iter()
        .map(|a| match a {
            Atom::Var(v) => Some(*v),
            Atom::Const(_) => None,
        })
        .collect::<Option<Vec<VarId>>>()?;
    let mut distinct = returned.clone();
    distinct.sort();
    distinct.dedup();
    let failing = inner.iter().filter(|(g, _)| !cannot_fail(g)).count();
    let ok = distinct.len() == returned.len()
        && made.len() == returned.len()
        && made.iter().all(|v| returned.contains(v))
        && failing <= 1
        && made.len() >= 2;
    ok.then_some(Rows {
        row,
        inner,
        result: &lam.body.result,
    })
}

/// The inner functions as one over the row's element: each in order, its
/// parameters bound to the element, returning the nest's results.
fn merged(rows: &Rows, fresh: &mut Fresh, loc: SrcLoc) -> Option<Lambda> {
    let x = fresh.var("x", Type::Scalar(rows.row.ty.elem()));
    let mut stms = Vec::new();
    // Inner result name -> (the atom the function gives, its type).
    let mut gives: HashMap<VarId, (Atom, Type)> = HashMap::new();
    for (g, pat) in &rows.inner {
        for p in &g.params {
            stms.push(Stm {
                pat: vec![p.clone()],
                exp: Exp::Atom(Atom::Var(x.id)),
                loc,
            });
        }
        stms.extend(g.body.stms.iter().cloned());
        for ((v, a), t) in pat.iter().zip(&g.body.result).zip(&g.ret) {
            gives.insert(v.id, (*a, *t));
        }
    }
    let gave: Option<Vec<(Atom, Type)>> = rows
        .result
        .iter()
        .map(|a| match a {
            Atom::Var(v) => gives.get(v).copied(),
            Atom::Const(_) => None,
        })
        .collect();
    let (result, ret) = gave?.into_iter().unzip();
    Some(Lambda {
        params: vec![x],
        body: Body { stms, result },
        ret,
    })
}
