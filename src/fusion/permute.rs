//! Fusion through `reverse`, `rotate` and slices: a `Body` in, a `Body`
//! out, before the fusion graph is built (under `greedy` and `ilp`).
//!
//! A map is element-wise, so permuting its result permutes its inputs:
//! `reverse (map f xs) = map f (reverse xs)`, likewise for `rotate`, and
//! `(map f xs)[a:b:s] = map f xs[a:b:s]` for a range over the outer
//! dimension (which computes only the elements kept). When a map's only
//! use is such a permutation, the permutation moves onto the map's inputs. The map then streams into its consumer along a
//! fusible edge, and the permuted inputs cost nothing of their own: the
//! lowering reads a permuted array's source at the composed index
//! (`loopy::lower`'s `Generated::Permuted`, `loopy::generators`). So
//! `map g (reverse (map f xs))` is one loop that reads `xs` backwards and
//! writes nothing in between, as in Futhark.
//!
//! Only maps whose function cannot fail move: evaluating the elements in
//! another order, or fewer of them, must not change which error a program
//! reports.

use crate::core::free::free_in_exp;
use crate::core::fresh::Fresh;
use crate::core::ir::{Atom, Body, DimSlice, Exp, Lambda, SoacKind, Stm, Type, VarId};
use std::collections::HashMap;

/// `body` with each permuted map's permutation moved onto its inputs.
pub fn push_into_maps(body: &Body, fresh: &mut Fresh) -> Body {
    let mut uses: HashMap<VarId, usize> = HashMap::new();
    for stm in &body.stms {
        for v in free_in_exp(&stm.exp) {
            *uses.entry(v).or_default() += 1;
        }
    }
    for a in &body.result {
        if let Atom::Var(v) = a {
            *uses.entry(*v).or_default() += 1;
        }
    }
    let definer: HashMap<VarId, usize> = body
        .stms
        .iter()
        .enumerate()
        .flat_map(|(i, s)| s.pat.iter().map(move |v| (v.id, i)))
        .collect();
    // Map statement index to the index of the permutation that moves into it.
    let mut moved: HashMap<usize, usize> = HashMap::new();
    for (i, stm) in body.stms.iter().enumerate() {
        let source = match &stm.exp {
            Exp::Reverse(a) | Exp::Rotate { array: a, .. } => *a,
            Exp::Slice { array, dims } if matches!(dims[..], [DimSlice::Range { .. }]) => *array,
            _ => continue,
        };
        let Some(&m) = definer.get(&source) else {
            continue;
        };
        let Exp::Soac(soac) = &body.stms[m].exp else {
            continue;
        };
        let movable = matches!(&soac.kind, SoacKind::Map(lam) if cannot_fail(lam))
            && body.stms[m].pat.len() == 1
            && uses.get(&source) == Some(&1)
            && !moved.contains_key(&m);
        if movable {
            moved.insert(m, i);
        }
    }
    if moved.is_empty() {
        return body.clone();
    }
    let by_permutation: HashMap<usize, usize> = moved.iter().map(|(&m, &p)| (p, m)).collect();
    let mut stms = Vec::with_capacity(body.stms.len() + moved.len());
    // The width of each moved slice's map: asking the map's result for its
    // size reads that instead (else it would be a use keeping the map apart).
    let mut widths: HashMap<VarId, Atom> = HashMap::new();
    for (i, stm) in body.stms.iter().enumerate() {
        if moved.contains_key(&i) {
            continue;
        }
        let Some(&m) = by_permutation.get(&i) else {
            match &stm.exp {
                Exp::Size { array, dim: 0 } if widths.contains_key(array) => stms.push(Stm {
                    exp: Exp::Atom(widths[array]),
                    ..stm.clone()
                }),
                _ => stms.push(stm.clone()),
            }
            continue;
        };
        let map = &body.stms[m];
        let Exp::Soac(soac) = &map.exp else {
            continue;
        };
        let mut soac = soac.clone();
        let param_types: Vec<Type> = soac
            .kind
            .lambda()
            .map(|lam| lam.params.iter().map(|p| p.ty).collect())
            .unwrap_or_default();
        for (a, ty) in soac.args.iter_mut().zip(param_types) {
            let permuted = fresh.var("permuted", Type::Array(ty.elem(), ty.rank() + 1));
            let exp = match &stm.exp {
                Exp::Rotate { amount, .. } => Exp::Rotate {
                    array: *a,
                    amount: *amount,
                },
                Exp::Slice { dims, .. } => Exp::Slice {
                    array: *a,
                    dims: dims.clone(),
                },
                _ => Exp::Reverse(*a),
            };
            *a = permuted.id;
            stms.push(Stm {
                pat: vec![permuted],
                exp,
                loc: stm.loc,
            });
        }
        // A slice has its own size: the map's width is that of its first
        // sliced input (all are sliced alike from arrays of one size).
        if let (Exp::Slice { .. }, Some(&first)) = (&stm.exp, soac.args.first()) {
            let width = fresh.var("n", Type::Scalar(crate::types::ScalarType::I64));
            soac.width = Atom::Var(width.id);
            for p in &stm.pat {
                widths.insert(p.id, soac.width);
            }
            stms.push(Stm {
                pat: vec![width],
                exp: Exp::Size {
                    array: first,
                    dim: 0,
                },
                loc: stm.loc,
            });
        }
        stms.push(Stm {
            pat: stm.pat.clone(),
            exp: Exp::Soac(soac),
            loc: map.loc,
        });
    }
    Body {
        stms,
        result: body.result.clone(),
    }
}

/// The function evaluates scalar operations only, none of which can fail.
fn cannot_fail(lam: &Lambda) -> bool {
    fn body_ok(body: &Body) -> bool {
        body.stms.iter().all(|s| match &s.exp {
            Exp::BinOp(op, _, _) => !op.may_fail(),
            Exp::UnOp(..) | Exp::Convert(..) | Exp::Atom(_) | Exp::Fma(..) => true,
            Exp::If {
                then_body,
                else_body,
                ..
            } => body_ok(then_body) && body_ok(else_body),
            _ => false,
        })
    }
    body_ok(&lam.body)
}
