//! A flattened map nest as one map over the flat index: a `Body` in, a
//! `Body` out, after `reshape` (under `greedy` and `ilp`).
//!
//! `flatten (map (\a -> ..; map (\b -> g) ys) xs)`, whose inner map streams
//! arrays from outside the nest (`tabulate_2d`, `map (\a -> map (f a) B) A`),
//! is `map (\k -> let a = xs[k / m] let b = ys[k % m] in ..; g) (iota (n *
//! m))`: one map whose result is the flat array, so it is stored where it is
//! made (the nest's flattened result, a view, was copied out when returned)
//! and streams into its consumers. `loopy::lower` runs it as the two loops
//! of the nest again (`loopy::lower::flat`), so the inner loop still
//! vectorises and divides nothing.
//!
//! Sound where the elements come in the same (row-major) order, so the
//! first error of `g` is the same; the statements before the inner map,
//! which the nest ran once per row, now run once per element, so they must
//! not fail (with no columns the nest ran them and the flat map does not).
//! Each input is an `iota` of its map's width or the width is its size, so
//! the indices are in range (and the reads unchecked); an `iota`'s element
//! is the index itself. `n * m` is checked not to wrap (the nest would have
//! failed to allocate; the exact-errors fallback reports that). Not done
//! where a SOAC of the body makes an input of the outer map: the nest could
//! fuse with it, the flat map only gathers it; nor where a SOAC other than
//! a map reads the flat array (`only_maps_read`).

use super::permute::{definers, use_counts};
use crate::core::fresh::Fresh;
use crate::core::ir::{
    AssertReport, Atom, BinOp, Body, Exp, Lambda, Soac, SoacKind, Stm, Type, Var, VarId,
};
use crate::types::{Const, ScalarType};
use std::collections::{HashMap, HashSet};

const I64: Type = Type::Scalar(ScalarType::I64);

/// `body` with each flattened nest of the form above made one flat map.
pub fn flat_maps(body: &Body, fresh: &mut Fresh) -> Body {
    let uses = use_counts(body);
    let definer = definers(body);
    // Nest statement -> flatten statement.
    let mut flats: HashMap<usize, usize> = HashMap::new();
    for (f, stm) in body.stms.iter().enumerate() {
        let Exp::Flatten(nest) = stm.exp else {
            continue;
        };
        let Some(&m) = definer.get(&nest) else {
            continue;
        };
        if uses.get(&nest) == Some(&1)
            && shape(body, &definer, m).is_some()
            && only_maps_read(body, stm.pat[0].id)
        {
            flats.insert(m, f);
        }
    }
    if flats.is_empty() {
        return body.clone();
    }
    let dropped: HashSet<usize> = flats.values().copied().collect();
    // The flat arrays' widths: asking for one reads nothing of the array
    // (a `size` statement would be a preventing edge from the flat map).
    let mut widths: HashMap<VarId, Atom> = HashMap::new();
    let mut stms = Vec::with_capacity(body.stms.len() + 8 * flats.len());
    for (i, stm) in body.stms.iter().enumerate() {
        if dropped.contains(&i) {
            continue;
        }
        match (flats.get(&i), shape(body, &definer, i), &stm.exp) {
            (Some(&f), Some(nest), _) => {
                let flatten = &body.stms[f];
                let w = rewrite(&nest, flatten, stm, fresh, &mut stms);
                widths.insert(flatten.pat[0].id, w);
            }
            (_, _, Exp::Size { array, dim: 0 }) if widths.contains_key(array) => stms.push(Stm {
                exp: Exp::Atom(widths[array]),
                ..stm.clone()
            }),
            _ => stms.push(stm.clone()),
        }
    }
    Body {
        stms,
        result: body.result.clone(),
    }
}

/// Whether only maps read `flat`, and their results in turn: a reduction
/// or scan fused with the flat map would divide in every iteration, a
/// loop `loopy::unflat` does not re-nest (the nest, reduced over its
/// flattened view, stays two vectorised loops).
fn only_maps_read(body: &Body, flat: VarId) -> bool {
    let mut reach = HashSet::from([flat]);
    for stm in &body.stms {
        let Exp::Soac(soac) = &stm.exp else {
            continue;
        };
        if soac.args.iter().any(|a| reach.contains(a)) {
            if !matches!(soac.kind, SoacKind::Map(_)) {
                return false;
            }
            reach.extend(stm.pat.iter().map(|v| v.id));
        }
    }
    true
}

/// A nest of the form above, taken apart.
struct Nest<'a> {
    outer: &'a Soac,
    lam: &'a Lambda,
    /// The statements before the inner map.
    prefix: &'a [Stm],
    inner: &'a Soac,
    g: &'a Lambda,
    /// For each input of either map: whether it is an `iota` (its element is
    /// the index).
    iotas: HashSet<VarId>,
}

fn shape<'a>(body: &'a Body, definer: &HashMap<VarId, usize>, at: usize) -> Option<Nest<'a>> {
    let stm = &body.stms[at];
    let Exp::Soac(outer) = &stm.exp else {
        return None;
    };
    let SoacKind::Map(lam) = &outer.kind else {
        return None;
    };
    let (last, prefix) = lam.body.stms.split_last()?;
    let Exp::Soac(inner) = &last.exp else {
        return None;
    };
    let SoacKind::Map(g) = &inner.kind else {
        return None;
    };
    let ([_], [_], [r], [Atom::Var(res)], [Type::Scalar(_)]) = (
        &stm.pat[..],
        &lam.ret[..],
        &last.pat[..],
        &lam.body.result[..],
        &g.ret[..],
    ) else {
        return None;
    };
    let scalar = |v: &Var| matches!(v.ty, Type::Scalar(_));
    // Defined inside the outer function: the inner map's inputs and width
    // must not be.
    let mut inside: HashSet<VarId> = lam.params.iter().map(|p| p.id).collect();
    inside.extend(prefix.iter().flat_map(|s| s.pat.iter().map(|v| v.id)));
    let quiet = prefix.iter().all(|s| match &s.exp {
        Exp::BinOp(op, ..) => !op.may_fail(),
        Exp::UnOp(..) | Exp::Convert(..) | Exp::Atom(_) | Exp::Fma(..) => true,
        _ => false,
    });
    let outside = |a: &Atom| !matches!(a, Atom::Var(v) if inside.contains(v));
    if r.id != *res
        || outer.sequential
        || inner.sequential
        || !quiet
        || !lam.params.iter().all(scalar)
        || !g.params.iter().all(scalar)
        || !outside(&inner.width)
        || inner.args.iter().any(|a| inside.contains(a))
    {
        return None;
    }
    let mut iotas = HashSet::new();
    // Each input as long as its map's width: an `iota` of it, or the width
    // is its size.
    let mut fits = |a: VarId, width: Atom, may_be_soac: bool| {
        let def = definer.get(&a).map(|&d| &body.stms[d].exp);
        match def {
            Some(Exp::Iota(w)) if *w == width => {
                iotas.insert(a);
                return true;
            }
            Some(Exp::Soac(_)) if !may_be_soac => return false,
            _ => {}
        }
        let Atom::Var(w) = width else {
            return false;
        };
        definer.get(&w).is_some_and(|&d| {
            d < at && matches!(body.stms[d].exp, Exp::Size { array, dim: 0 } if array == a)
        })
    };
    let ok = outer.args.iter().all(|&a| fits(a, outer.width, false))
        && inner.args.iter().all(|&a| fits(a, inner.width, true));
    ok.then_some(Nest {
        outer,
        lam,
        prefix,
        inner,
        g,
        iotas,
    })
}

/// Pushes `let flat = map (\k -> ..) (iota (n * m))` for `nest`, binding
/// what `flatten` bound; gives its width.
fn rewrite(nest: &Nest, flatten: &Stm, at: &Stm, fresh: &mut Fresh, stms: &mut Vec<Stm>) -> Atom {
    let loc = at.loc;
    let push = |stms: &mut Vec<Stm>, v: &Var, exp: Exp| {
        stms.push(Stm {
            pat: vec![v.clone()],
            exp,
            loc,
        })
    };
    let (n, m) = (nest.outer.width, nest.inner.width);
    // `0 <= n`, `0 <= m` and `n * m` does not wrap (`n <= i64::MAX / max m
    // 1`): what `loopy::unflat` needs to run the two loops again.
    let var = |fresh: &mut Fresh, name: &str, ty: Type| fresh.var(name, ty);
    let bool_ty = Type::Scalar(ScalarType::Bool);
    let zero = Atom::Const(Const::I64(0));
    let m1 = var(fresh, "m1", I64);
    let lim = var(fresh, "lim", I64);
    let checks: Vec<Var> = (0..5).map(|_| var(fresh, "fits", bool_ty)).collect();
    let w = fresh.var("w", I64);
    let ks = fresh.var("ks", Type::Array(ScalarType::I64, 1));
    push(
        stms,
        &m1,
        Exp::BinOp(BinOp::Max, m, Atom::Const(Const::I64(1))),
    );
    let max = Atom::Const(Const::I64(i64::MAX));
    push(stms, &lim, Exp::BinOp(BinOp::Quot, max, Atom::Var(m1.id)));
    let at = |k: usize| Atom::Var(checks[k].id);
    push(stms, &checks[0], Exp::BinOp(BinOp::Le, zero, n));
    push(stms, &checks[1], Exp::BinOp(BinOp::Le, zero, m));
    push(
        stms,
        &checks[2],
        Exp::BinOp(BinOp::Le, n, Atom::Var(lim.id)),
    );
    push(stms, &checks[3], Exp::BinOp(BinOp::And, at(0), at(1)));
    push(stms, &checks[4], Exp::BinOp(BinOp::And, at(3), at(2)));
    stms.push(Stm {
        pat: vec![],
        exp: Exp::Assert(at(4), AssertReport::Plain),
        loc,
    });
    push(stms, &w, Exp::BinOp(BinOp::Mul, n, m));
    push(stms, &ks, Exp::Iota(Atom::Var(w.id)));
    // The function: row and column, the elements, the prefix, `g`.
    let k = fresh.var("k", I64);
    let i = fresh.var("i", I64);
    let j = fresh.var("j", I64);
    let mut body = Vec::new();
    push(&mut body, &i, Exp::BinOp(BinOp::Div, Atom::Var(k.id), m));
    push(&mut body, &j, Exp::BinOp(BinOp::Mod, Atom::Var(k.id), m));
    let element = |body: &mut Vec<Stm>, p: &Var, a: VarId, index: &Var| {
        let exp = if nest.iotas.contains(&a) {
            Exp::Atom(Atom::Var(index.id))
        } else {
            Exp::Index {
                array: a,
                indices: vec![Atom::Var(index.id)],
                checked: false,
            }
        };
        push(body, p, exp);
    };
    for (p, &a) in nest.lam.params.iter().zip(&nest.outer.args) {
        element(&mut body, p, a, &i);
    }
    body.extend(nest.prefix.iter().cloned());
    for (p, &a) in nest.g.params.iter().zip(&nest.inner.args) {
        element(&mut body, p, a, &j);
    }
    body.extend(nest.g.body.stms.iter().cloned());
    let lam = Lambda {
        params: vec![k],
        body: Body {
            stms: body,
            result: nest.g.body.result.clone(),
        },
        ret: nest.g.ret.clone(),
    };
    stms.push(Stm {
        pat: flatten.pat.clone(),
        exp: Exp::Soac(Soac {
            label: nest.outer.label,
            width: Atom::Var(w.id),
            kind: SoacKind::Map(lam),
            args: vec![ks.id],
            sequential: false,
        }),
        loc,
    });
    Atom::Var(w.id)
}
