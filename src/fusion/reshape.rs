//! Fusion through `flatten` and `unflatten`: a `Body` in, a `Body` out,
//! before the fusion graph is built (under `greedy` and `ilp`).
//!
//! A map nest `\rows -> map g rows` (`permute::map_nest`) computes its
//! elements in row-major order, the order of the flat array, so
//!
//! - `flatten (map (\r -> map g r) xss)` is `map g (flatten xss)`, and
//! - `map (\r -> map g r) (unflatten n m a)` is `unflatten n m (map g a)`.
//!
//! `flatten` and `unflatten` of a stored array are views (`loopy::lower`),
//! so the rewritten map streams the flat array and fuses with its producer
//! or consumer along a fusible edge instead of meeting a matrix it can only
//! read whole. The order in which elements are computed is unchanged, so
//! the same error is reported; the `unflatten` statements stay, so their
//! size check does too.
//!
//! A nest whose inner map streams something else (`iota`, another array),
//! flattened and then mapped, cannot be made flat without splitting the flat
//! index; instead the consumer moves into the nest (`compose_into_nests`):
//! `map h (flatten (map (\a -> map g ys) xs))` is
//! `flatten (map (\a -> map (h . g) ys) xs)`, one loop nest. Only when `h`
//! cannot fail, so that the first error is still the nest's.

use super::permute::{cannot_fail, definers, map_nest, use_counts};
use crate::core::free::free_in_body;
use crate::core::fresh::Fresh;
use crate::core::ir::{Atom, Body, Exp, Lambda, Soac, SoacKind, SrcLoc, Stm, Type, Var, VarId};
use crate::types::ScalarType;
use std::collections::{HashMap, HashSet};

/// `body` with map nests around `flatten` and `unflatten` made flat.
pub fn flatten_nests(body: &Body, fresh: &mut Fresh) -> Body {
    let uses = use_counts(body);
    let definer = definers(body);
    let nest = |i: usize| match &body.stms[i].exp {
        Exp::Soac(soac) => match &soac.kind {
            SoacKind::Map(lam) if !soac.args.is_empty() => match &map_nest(lam)?.exp {
                Exp::Soac(inner) => Some((soac, lam, inner)),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    };
    let made_by_soac = |a: &VarId| {
        definer
            .get(a)
            .is_some_and(|&d| matches!(body.stms[d].exp, Exp::Soac(_)))
    };
    // A `flatten` statement and the map nest, used by nothing else, it
    // flattens. Not when a SOAC makes the nest's input: the nest could fuse
    // with it (row maps in a row), the flat map could not.
    let mut flattened: HashMap<usize, usize> = HashMap::new();
    for (i, stm) in body.stms.iter().enumerate() {
        let Exp::Flatten(src) = stm.exp else { continue };
        let Some(&m) = definer.get(&src) else {
            continue;
        };
        let Some((soac, _, _)) = nest(m) else {
            continue;
        };
        if body.stms[m].pat.len() == 1
            && uses.get(&src) == Some(&1)
            && !soac.args.iter().any(made_by_soac)
        {
            flattened.insert(i, m);
        }
    }
    // Arrays some SOAC streams: a nest whose result one streams stays (it
    // fuses with that consumer as row maps; the flat map would not).
    let streamed: HashSet<VarId> = body
        .stms
        .iter()
        .filter_map(|s| match &s.exp {
            Exp::Soac(soac) => Some(soac.args.iter().copied()),
            _ => None,
        })
        .flatten()
        .collect();
    let dropped: HashMap<usize, usize> = flattened.iter().map(|(&i, &m)| (m, i)).collect();
    // The width of a map over a flat array: that of the SOAC making it, so
    // that asking for it reads nothing of the array (a `size` statement
    // would be a preventing edge from the producer).
    let width_of = |a: VarId| match definer.get(&a).map(|&d| &body.stms[d].exp) {
        Some(Exp::Soac(s))
            if matches!(
                s.kind,
                SoacKind::Map(_) | SoacKind::Scan { .. } | SoacKind::ScanRight { .. }
            ) =>
        {
            Some(s.width)
        }
        _ => None,
    };
    // A map nest over the rows of one unflattened array: the flat array,
    // the shape and the `unflatten`'s location (for its size check, which
    // moves to the nest, so only past statements that cannot fail). Only
    // where it moves no more data: a SOAC makes the flat array, which
    // nothing else reads (else the fused map would write it besides), and
    // nothing but this nest reads the unflattened one. (With two inputs the
    // new `unflatten` would check only one of their sizes.)
    let unflattened = |i: usize| -> Option<(Vec<VarId>, Atom, Atom, SrcLoc)> {
        let (soac, _, _) = nest(i)?;
        if body.stms[i].pat.iter().any(|p| streamed.contains(&p.id))
            || soac.args.iter().any(|a| *a != soac.args[0])
        {
            return None;
        }
        let mut shape = None;
        let mut flat = Vec::new();
        for a in &soac.args {
            let at = &body.stms[*definer.get(a)?];
            let Exp::Unflatten { array, rows, cols } = at.exp else {
                return None;
            };
            let readers = soac.args.iter().filter(|b| *b == a).count();
            // The size check moves to the nest, past these statements.
            let quiet = body.stms[definer[a] + 1..i].iter().all(|s| match &s.exp {
                Exp::BinOp(op, ..) => !op.may_fail(),
                Exp::Size { .. } | Exp::Atom(_) | Exp::UnOp(..) | Exp::Convert(..) => true,
                _ => false,
            });
            if !quiet
                || uses.get(a) != Some(&readers)
                || uses.get(&array) != Some(&1)
                || width_of(array).is_none()
            {
                return None;
            }
            let (r, c, _) = *shape.get_or_insert((rows, cols, at.loc));
            if (r, c) != (rows, cols) {
                return None;
            }
            flat.push(array);
        }
        let (rows, cols, loc) = shape?;
        Some((flat, rows, cols, loc))
    };
    let unflattening: HashMap<usize, (Vec<VarId>, Atom, Atom, SrcLoc)> = (0..body.stms.len())
        .filter(|i| !dropped.contains_key(i))
        .filter_map(|i| Some((i, unflattened(i)?)))
        .collect();
    if flattened.is_empty() && unflattening.is_empty() {
        return body.clone();
    }
    // The `unflatten`s the rewritten nests read go (nothing else reads
    // them): the new `unflatten` of the result checks the same sizes, the
    // flat result being as long as the flat input.
    let gone: HashSet<VarId> = unflattening
        .keys()
        .filter_map(|&i| match &body.stms[i].exp {
            Exp::Soac(soac) => Some(soac.args.iter().copied()),
            _ => None,
        })
        .flatten()
        .collect();
    let unused = |i: usize| {
        let stm = &body.stms[i];
        matches!(stm.exp, Exp::Unflatten { .. }) && stm.pat.iter().all(|v| gone.contains(&v.id))
    };
    let mut widths: HashMap<VarId, Atom> = HashMap::new();
    let mut stms = Vec::with_capacity(body.stms.len() + 4);
    for (i, stm) in body.stms.iter().enumerate() {
        if dropped.contains_key(&i) || unused(i) {
            continue;
        }
        if let Some(asked) = width_asked(stm, &widths) {
            stms.push(asked);
            continue;
        }
        if let Some(&m) = flattened.get(&i) {
            let Some((soac, lam, inner)) = nest(m) else {
                continue;
            };
            let mut flat = Vec::with_capacity(soac.args.len());
            for (&a, p) in soac.args.iter().zip(&lam.params) {
                let v = fresh.var("flat", p.ty);
                flat.push(v.id);
                stms.push(Stm {
                    pat: vec![v],
                    exp: Exp::Flatten(a),
                    loc: stm.loc,
                });
            }
            let map = flat_map(soac, lam, inner, &flat, None, fresh, stm, &mut stms);
            widths.insert(stm.pat[0].id, map.width);
            stms.push(Stm {
                pat: stm.pat.clone(),
                exp: Exp::Soac(map),
                loc: body.stms[m].loc,
            });
            continue;
        }
        let (Some((flat, rows, cols, loc)), Some((soac, lam, inner))) =
            (unflattening.get(&i), nest(i))
        else {
            stms.push(stm.clone());
            continue;
        };
        let width = width_of(flat[0]);
        let map = flat_map(soac, lam, inner, flat, width, fresh, stm, &mut stms);
        let parts: Vec<_> = stm
            .pat
            .iter()
            .map(|p| fresh.var("flat", Type::Array(p.ty.elem(), p.ty.rank().max(2) - 1)))
            .collect();
        let ids: Vec<VarId> = parts.iter().map(|v| v.id).collect();
        stms.push(Stm {
            pat: parts,
            exp: Exp::Soac(map),
            loc: stm.loc,
        });
        for (p, array) in stm.pat.iter().zip(ids) {
            stms.push(Stm {
                pat: vec![p.clone()],
                exp: Exp::Unflatten {
                    array,
                    rows: *rows,
                    cols: *cols,
                },
                loc: *loc,
            });
        }
    }
    Body {
        stms,
        result: body.result.clone(),
    }
}

/// `size a 0` of an array whose width is known (`widths`) as that width:
/// asking for it then reads nothing of the array (a `size` statement of a
/// SOAC's result would be a preventing edge from the SOAC).
pub(super) fn width_asked(stm: &Stm, widths: &HashMap<VarId, Atom>) -> Option<Stm> {
    let Exp::Size { array, dim: 0 } = stm.exp else {
        return None;
    };
    let w = *widths.get(&array)?;
    Some(Stm {
        exp: Exp::Atom(w),
        ..stm.clone()
    })
}

/// The nest's inner map over the flat arrays (`flat[k]` for the outer
/// map's `k`-th argument), over `width` or else the first one's length.
#[allow(clippy::too_many_arguments)]
fn flat_map(
    soac: &Soac,
    lam: &Lambda,
    inner: &Soac,
    flat: &[VarId],
    width: Option<Atom>,
    fresh: &mut Fresh,
    at: &Stm,
    stms: &mut Vec<Stm>,
) -> Soac {
    let width = width.unwrap_or_else(|| {
        let n = fresh.var("n", Type::Scalar(ScalarType::I64));
        let id = n.id;
        stms.push(Stm {
            pat: vec![n],
            exp: Exp::Size {
                array: flat[0],
                dim: 0,
            },
            loc: at.loc,
        });
        Atom::Var(id)
    });
    let position: HashMap<VarId, usize> = lam
        .params
        .iter()
        .enumerate()
        .map(|(k, p)| (p.id, k))
        .collect();
    Soac {
        label: soac.label,
        width,
        kind: inner.kind.clone(),
        // `map_nest` checked that the inner map streams exactly the rows.
        args: inner.args.iter().map(|a| flat[position[a]]).collect(),
        sequential: soac.sequential,
    }
}

/// `body` with each map over a flattened map nest (`map h (flatten m)`,
/// `m` used by nothing else, the flat array by nothing but that map and
/// sizes) moved into the nest's inner map: the nest makes `h`'s results and
/// its `flatten` binds the map's result, which has the flat array's size.
/// Only where `h` cannot fail and reads nothing defined after the nest.
pub fn compose_into_nests(body: &Body) -> Body {
    let uses = use_counts(body);
    let definer = definers(body);
    // The map over the flat array: flatten statement, nest statement, map.
    let mut moved: HashMap<usize, (usize, usize)> = HashMap::new();
    for (c, stm) in body.stms.iter().enumerate() {
        let Exp::Soac(Soac {
            kind: SoacKind::Map(h),
            args,
            ..
        }) = &stm.exp
        else {
            continue;
        };
        let ([flat], [_], [_], [Type::Scalar(_)]) =
            (&args[..], &stm.pat[..], &h.params[..], &h.ret[..])
        else {
            continue;
        };
        let Some(&f) = definer.get(flat) else {
            continue;
        };
        let Exp::Flatten(nested) = body.stms[f].exp else {
            continue;
        };
        let Some(&m) = definer.get(&nested) else {
            continue;
        };
        let sizes = body
            .stms
            .iter()
            .filter(|s| matches!(s.exp, Exp::Size { array, .. } if array == *flat))
            .count();
        let defined_before_nest = |v: &VarId| {
            definer.get(v).is_none_or(|&d| d < m) || h.params.iter().any(|p| p.id == *v)
        };
        if uses.get(flat) != Some(&(sizes + 1))
            || uses.get(&nested) != Some(&1)
            || body.stms[m].pat.len() != 1
            || inner_map(&body.stms[m]).is_none()
            || !cannot_fail(h)
            || !free_in_body(&h.body).iter().all(defined_before_nest)
            || moved.values().any(|&(_, mm)| mm == m)
        {
            continue;
        }
        moved.insert(c, (f, m));
    }
    if moved.is_empty() {
        return body.clone();
    }
    let mut nests: HashMap<usize, &Lambda> = HashMap::new();
    let mut renamed: HashMap<VarId, Var> = HashMap::new();
    let mut flattens: HashMap<usize, usize> = HashMap::new();
    for (&c, &(f, m)) in &moved {
        let Exp::Soac(Soac {
            kind: SoacKind::Map(h),
            ..
        }) = &body.stms[c].exp
        else {
            continue;
        };
        nests.insert(m, h);
        flattens.insert(f, c);
        renamed.insert(body.stms[f].pat[0].id, body.stms[c].pat[0].clone());
    }
    let mut stms = Vec::with_capacity(body.stms.len());
    for (i, stm) in body.stms.iter().enumerate() {
        if moved.contains_key(&i) {
            continue;
        }
        if let Some(&c) = flattens.get(&i) {
            stms.push(Stm {
                pat: body.stms[c].pat.clone(),
                ..stm.clone()
            });
            continue;
        }
        if let Exp::Size { array, dim } = stm.exp {
            if let Some(to) = renamed.get(&array) {
                stms.push(Stm {
                    exp: Exp::Size { array: to.id, dim },
                    ..stm.clone()
                });
                continue;
            }
        }
        match (nests.get(&i), &stm.exp) {
            (Some(h), Exp::Soac(nest)) => stms.push(composed(stm, nest, h)),
            _ => stms.push(stm.clone()),
        }
    }
    Body {
        stms,
        result: body.result.clone(),
    }
}

/// The inner map of a nest `map (\.. -> ..; map g ..) ..` of one result, whose
/// `g` makes one scalar: the last statement of the outer function, whose
/// result is the function's.
fn inner_map(stm: &Stm) -> Option<(&Stm, &Lambda)> {
    let Exp::Soac(Soac {
        kind: SoacKind::Map(lam),
        ..
    }) = &stm.exp
    else {
        return None;
    };
    let last = lam.body.stms.last()?;
    let Exp::Soac(Soac {
        kind: SoacKind::Map(g),
        ..
    }) = &last.exp
    else {
        return None;
    };
    let ([r], [Atom::Var(res)], [Type::Scalar(_)]) =
        (&last.pat[..], &lam.body.result[..], &g.ret[..])
    else {
        return None;
    };
    (r.id == *res && lam.ret.len() == 1 && g.body.result.len() == 1).then_some((last, g))
}

/// The nest statement `stm` with `h` applied to each element its inner map
/// makes.
fn composed(stm: &Stm, nest: &Soac, h: &Lambda) -> Stm {
    let elem = h.ret[0].elem();
    let SoacKind::Map(lam) = &nest.kind else {
        return stm.clone();
    };
    let Some((last, g)) = inner_map(stm) else {
        return stm.clone();
    };
    let Exp::Soac(inner) = &last.exp else {
        return stm.clone();
    };
    let mut g_stms = g.body.stms.clone();
    g_stms.push(Stm {
        pat: vec![h.params[0].clone()],
        exp: Exp::Atom(g.body.result[0]),
        loc: last.loc,
    });
    g_stms.extend(h.body.stms.iter().cloned());
    let g = Lambda {
        params: g.params.clone(),
        body: Body {
            stms: g_stms,
            result: h.body.result.clone(),
        },
        ret: h.ret.clone(),
    };
    let retyped = |v: &Var, rank: usize| Var {
        ty: Type::Array(elem, rank),
        ..v.clone()
    };
    let mut outer = lam.body.stms.clone();
    let n = outer.len();
    outer[n - 1] = Stm {
        pat: vec![retyped(&last.pat[0], 1)],
        exp: Exp::Soac(Soac {
            kind: SoacKind::Map(g),
            ..inner.clone()
        }),
        loc: last.loc,
    };
    let lam = Lambda {
        params: lam.params.clone(),
        body: Body {
            stms: outer,
            result: lam.body.result.clone(),
        },
        ret: vec![Type::Array(elem, 1)],
    };
    Stm {
        pat: vec![retyped(&stm.pat[0], 2)],
        exp: Exp::Soac(Soac {
            kind: SoacKind::Map(lam),
            ..nest.clone()
        }),
        loc: stm.loc,
    }
}

/// `transpose (unflatten n m a)` where `a = map h xs` (maps over one array
/// each, every one used once, composed, none of which can fail) and the
/// `unflatten` is read by that `transpose` alone: the maps move past the
/// `unflatten`, `unflatten n m a` becoming `map (\r -> map h r) (unflatten
/// n m xs)`, whose transposition `permute` then moves onto its input. The
/// nest then streams into the map over the transposed rows (Futhark's
/// `fuse-across-reshape-transpose`: one loop nest that reads `xs` through
/// the transposed view). Elements are computed as before, and the
/// `unflatten` checks the same size (`xs` is as long as `a`).
pub fn maps_past_unflatten(body: &Body, fresh: &mut Fresh) -> Body {
    let uses = use_counts(body);
    let definer = definers(body);
    let once = |v: &VarId| uses.get(v) == Some(&1);
    let transposed: HashSet<VarId> = body
        .stms
        .iter()
        .filter_map(|s| match s.exp {
            Exp::Transpose(a) => Some(a),
            _ => None,
        })
        .collect();
    // The `unflatten` statement and its chain of maps, outermost first.
    let mut chains: HashMap<usize, Vec<usize>> = HashMap::new();
    for (u, stm) in body.stms.iter().enumerate() {
        let (Exp::Unflatten { array, .. }, [b]) = (&stm.exp, &stm.pat[..]) else {
            continue;
        };
        if !transposed.contains(&b.id) || !once(&b.id) {
            continue;
        }
        let mut chain = Vec::new();
        let mut a = *array;
        while let Some(&d) = definer.get(&a) {
            match scalar_map(&body.stms[d]) {
                Some((x, _)) if once(&a) => {
                    chain.push(d);
                    a = x;
                }
                _ => break,
            }
        }
        if !chain.is_empty() {
            chains.insert(u, chain);
        }
    }
    if chains.is_empty() {
        return body.clone();
    }
    let moved: HashSet<usize> = chains.values().flatten().copied().collect();
    let mut stms = Vec::with_capacity(body.stms.len() + chains.len());
    for (i, stm) in body.stms.iter().enumerate() {
        if moved.contains(&i) {
            continue;
        }
        let (Some(chain), Exp::Unflatten { rows, cols, .. }) = (chains.get(&i), &stm.exp) else {
            stms.push(stm.clone());
            continue;
        };
        let maps: Vec<(VarId, &Lambda)> = chain
            .iter()
            .filter_map(|&d| scalar_map(&body.stms[d]))
            .collect();
        let (Some(&(xs, bottom)), Some(&top)) = (maps.last(), chain.first()) else {
            continue;
        };
        // `h`: the maps' functions, innermost first.
        let mut h_stms = bottom.body.stms.clone();
        let mut result = bottom.body.result.clone();
        for (_, lam) in maps.iter().rev().skip(1) {
            h_stms.push(Stm {
                pat: vec![lam.params[0].clone()],
                exp: Exp::Atom(result[0]),
                loc: stm.loc,
            });
            h_stms.extend(lam.body.stms.iter().cloned());
            result = lam.body.result.clone();
        }
        let out = maps[0].1.ret[0].elem();
        let h = Lambda {
            params: bottom.params.clone(),
            body: Body {
                stms: h_stms,
                result,
            },
            ret: maps[0].1.ret.clone(),
        };
        let input = bottom.params[0].ty.elem();
        let u = fresh.var("unflat", Type::Array(input, 2));
        stms.push(Stm {
            pat: vec![u.clone()],
            exp: Exp::Unflatten {
                array: xs,
                rows: *rows,
                cols: *cols,
            },
            loc: stm.loc,
        });
        let row = fresh.var("row", Type::Array(input, 1));
        let made = fresh.var("row", Type::Array(out, 1));
        let inner = Soac {
            label: fresh.soac(),
            width: *cols,
            kind: SoacKind::Map(h),
            args: vec![row.id],
            sequential: false,
        };
        let Exp::Soac(outer) = &body.stms[top].exp else {
            continue;
        };
        let nest = Soac {
            label: outer.label,
            width: *rows,
            kind: SoacKind::Map(Lambda {
                params: vec![row],
                body: Body {
                    stms: vec![Stm {
                        pat: vec![made.clone()],
                        exp: Exp::Soac(inner),
                        loc: body.stms[top].loc,
                    }],
                    result: vec![Atom::Var(made.id)],
                },
                ret: vec![Type::Array(out, 1)],
            }),
            args: vec![u.id],
            sequential: false,
        };
        stms.push(Stm {
            pat: stm.pat.clone(),
            exp: Exp::Soac(nest),
            loc: body.stms[top].loc,
        });
    }
    Body {
        stms,
        result: body.result.clone(),
    }
}

/// A map of one array making one, scalar to scalar, whose function cannot
/// fail: its input and function.
fn scalar_map(stm: &Stm) -> Option<(VarId, &Lambda)> {
    let Exp::Soac(Soac {
        kind: SoacKind::Map(lam),
        args,
        sequential: false,
        ..
    }) = &stm.exp
    else {
        return None;
    };
    let ([x], [_], [p], [Type::Scalar(_)]) =
        (&args[..], &stm.pat[..], &lam.params[..], &lam.ret[..])
    else {
        return None;
    };
    (matches!(p.ty, Type::Scalar(_)) && cannot_fail(lam)).then_some((*x, lam))
}
