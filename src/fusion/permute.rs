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

use crate::core::free::{free_in_body, free_in_exp, free_in_exp_except_soac_args};
use crate::core::fresh::Fresh;
use crate::core::ir::{
    Atom, Body, DimSlice, Exp, Lambda, Soac, SoacKind, SrcLoc, Stm, Type, Var, VarId,
};
use std::collections::{HashMap, HashSet};

/// How often each variable is used by `body`'s statements and result.
pub(super) fn use_counts(body: &Body) -> HashMap<VarId, usize> {
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
    uses
}

/// The index of the statement that binds each variable of `body`.
pub(super) fn definers(body: &Body) -> HashMap<VarId, usize> {
    body.stms
        .iter()
        .enumerate()
        .flat_map(|(i, s)| s.pat.iter().map(move |v| (v.id, i)))
        .collect()
}

/// `body` with each permuted map's permutation moved onto its inputs.
pub fn push_into_maps(body: &Body, fresh: &mut Fresh) -> Body {
    let uses = use_counts(body);
    // Uses apart from asking for a size (a transposed map's sizes are its
    // inputs' own, so those are rewritten).
    let mut sizes_asked: HashMap<VarId, usize> = HashMap::new();
    for stm in &body.stms {
        if let Exp::Size { array, .. } = stm.exp {
            *sizes_asked.entry(array).or_default() += 1;
        }
    }
    let definer = definers(body);
    // Arrays the functions of SOACs read whole. A transposed map read so
    // (a product's `transpose b'`, read again for every row of the other
    // operand) stays where it is: moved onto its input, it would fuse with
    // nothing and only walk that input by columns, while the transposition,
    // kept, is a tiled nest that a matrix product reads through to its
    // source (`loopy::outer`).
    let read_whole: HashSet<VarId> = body
        .stms
        .iter()
        .filter(|s| matches!(s.exp, Exp::Soac(_)))
        .flat_map(|s| free_in_exp_except_soac_args(&s.exp))
        .collect();
    // Map statement index to the index of the permutation that moves into it.
    let mut moved: HashMap<usize, usize> = HashMap::new();
    for (i, stm) in body.stms.iter().enumerate() {
        let source = match &stm.exp {
            Exp::Reverse(a) | Exp::Rotate { array: a, .. } => *a,
            Exp::Slice { array, dims } if matches!(dims[..], [DimSlice::Range { .. }]) => *array,
            Exp::Transpose(a) => *a,
            _ => continue,
        };
        let Some(&m) = definer.get(&source) else {
            continue;
        };
        let Exp::Soac(soac) = &body.stms[m].exp else {
            continue;
        };
        let used = uses.get(&source).copied().unwrap_or(0);
        let movable = match (&soac.kind, &stm.exp) {
            (SoacKind::Map(lam), Exp::Transpose(_)) => {
                map_nest(lam).is_some()
                    && used - sizes_asked.get(&source).copied().unwrap_or(0) == 1
                    && stm.pat.iter().all(|t| !read_whole.contains(&t.id))
            }
            (SoacKind::Map(lam), _) => cannot_fail(lam) && used == 1,
            _ => false,
        } && body.stms[m].pat.len() == 1
            && !soac.args.is_empty()
            && !moved.contains_key(&m);
        if movable {
            moved.insert(m, i);
        }
    }
    // A map nest of several results, each transposed and used for nothing
    // else, moves likewise: one map over the transposed inputs binds every
    // transposition, at the first of them.
    let mut transposed_at: HashMap<VarId, usize> = HashMap::new();
    for (i, stm) in body.stms.iter().enumerate() {
        if let Exp::Transpose(a) = stm.exp {
            transposed_at.entry(a).or_insert(i);
        }
    }
    let mut gathered: HashMap<usize, Vec<usize>> = HashMap::new();
    for (m, stm) in body.stms.iter().enumerate() {
        let Exp::Soac(soac) = &stm.exp else {
            continue;
        };
        let SoacKind::Map(lam) = &soac.kind else {
            continue;
        };
        if stm.pat.len() < 2 || soac.args.is_empty() || map_nest(lam).is_none() {
            continue;
        }
        let transposes: Option<Vec<usize>> = stm
            .pat
            .iter()
            .map(|v| {
                let others = uses.get(&v.id).copied().unwrap_or(0)
                    - sizes_asked.get(&v.id).copied().unwrap_or(0);
                (others == 1).then(|| transposed_at.get(&v.id).copied())?
            })
            .collect();
        let transposes = transposes.filter(|ts| {
            ts.iter()
                .flat_map(|&t| &body.stms[t].pat)
                .all(|t| !read_whole.contains(&t.id))
        });
        if let Some(transposes) = transposes {
            gathered.insert(m, transposes);
        }
    }
    if moved.is_empty() && gathered.is_empty() {
        return body.clone();
    }
    // Each permutation that moves: the map moving into it and the
    // variables it binds (every transposition of a gathered map).
    let mut by_permutation: HashMap<usize, (usize, Vec<Var>)> = moved
        .iter()
        .map(|(&m, &p)| (p, (m, body.stms[p].pat.clone())))
        .collect();
    let mut dropped: HashSet<usize> = moved.keys().copied().collect();
    for (&m, transposes) in &gathered {
        let pat = transposes
            .iter()
            .flat_map(|&t| body.stms[t].pat.clone())
            .collect();
        let first = transposes.iter().copied().min().unwrap_or(m);
        by_permutation.insert(first, (m, pat));
        dropped.insert(m);
        dropped.extend(transposes.iter().filter(|&&t| t != first));
    }
    let mut stms = Vec::with_capacity(body.stms.len() + moved.len());
    // The width of each moved slice's map: asking the map's result for its
    // size reads that instead (else it would be a use keeping the map apart).
    let mut widths: HashMap<VarId, Atom> = HashMap::new();
    // The sizes of a transposed map's result: its width, then its first
    // input's inner sizes.
    let transposed: HashMap<VarId, (Atom, VarId)> = moved
        .iter()
        .filter(|(_, &p)| matches!(body.stms[p].exp, Exp::Transpose(_)))
        .map(|(&m, _)| m)
        .chain(gathered.keys().copied())
        .filter_map(|m| match &body.stms[m].exp {
            Exp::Soac(soac) => Some(
                body.stms[m]
                    .pat
                    .iter()
                    .map(move |v| (v.id, (soac.width, soac.args[0]))),
            ),
            _ => None,
        })
        .flatten()
        .collect();
    for (i, stm) in body.stms.iter().enumerate() {
        if dropped.contains(&i) {
            continue;
        }
        let Some((m, pat)) = by_permutation.get(&i) else {
            match &stm.exp {
                Exp::Size { array, dim: 0 } if widths.contains_key(array) => stms.push(Stm {
                    exp: Exp::Atom(widths[array]),
                    ..stm.clone()
                }),
                Exp::Size { array, dim } if transposed.contains_key(array) => {
                    let (width, first) = transposed[array];
                    let exp = match dim {
                        0 => Exp::Atom(width),
                        _ => Exp::Size {
                            array: first,
                            dim: *dim,
                        },
                    };
                    stms.push(Stm { exp, ..stm.clone() })
                }
                _ => stms.push(stm.clone()),
            }
            continue;
        };
        let map = &body.stms[*m];
        let Exp::Soac(soac) = &map.exp else {
            continue;
        };
        if let Exp::Transpose(_) = &stm.exp {
            transpose_nest(pat, stm.loc, map, soac, fresh, &mut stms);
            continue;
        }
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

/// `transpose (map (\rows -> map g rows) xs)` as
/// `map (\cols -> map g cols) (transpose xs)`: element `[i][j]` of either
/// is `g` of the inputs' elements `[j][i]`. The outer map now runs over the
/// inputs' columns (their inner size), the inner one over their rows (the
/// old outer width).
fn transpose_nest(
    pat: &[Var],
    loc: SrcLoc,
    map: &Stm,
    soac: &Soac,
    fresh: &mut Fresh,
    stms: &mut Vec<Stm>,
) {
    let SoacKind::Map(lam) = &soac.kind else {
        return;
    };
    let Some(inner_stm) = map_nest(lam) else {
        return;
    };
    let Exp::Soac(inner) = &inner_stm.exp else {
        return;
    };
    let mut args = Vec::with_capacity(soac.args.len());
    let mut first_cols = None;
    for (k, (a, p)) in soac.args.iter().zip(&lam.params).enumerate() {
        let matrix = Type::Array(p.ty.elem(), p.ty.rank() + 1);
        let mut source = *a;
        if k > 0 && source != soac.args[0] {
            source = with_first_row_size(source, soac, &mut first_cols, p.ty, loc, fresh, stms);
        }
        let transposed = fresh.var("transposed", matrix);
        args.push(transposed.id);
        stms.push(Stm {
            pat: vec![transposed],
            exp: Exp::Transpose(source),
            loc,
        });
    }
    let width = fresh.var("n", Type::Scalar(crate::types::ScalarType::I64));
    let Some(&first) = args.first() else {
        return;
    };
    stms.push(Stm {
        pat: vec![width.clone()],
        exp: Exp::Size {
            array: first,
            dim: 0,
        },
        loc,
    });
    let mut inner = inner.clone();
    inner.width = soac.width;
    let lam = Lambda {
        params: lam.params.clone(),
        body: Body {
            stms: vec![Stm {
                exp: Exp::Soac(inner),
                ..inner_stm.clone()
            }],
            result: lam.body.result.clone(),
        },
        ret: lam.ret.clone(),
    };
    stms.push(Stm {
        pat: pat.to_vec(),
        exp: Exp::Soac(Soac {
            label: soac.label,
            width: Atom::Var(width.id),
            kind: SoacKind::Map(lam),
            args,
            sequential: soac.sequential,
        }),
        loc: map.loc,
    });
}

/// `matrix`, an input of the nest after its first, reshaped to rows of the
/// first input's size (`unflatten (flatten matrix) width cols`, views of a
/// stored array). The nest compares the rows' sizes only in its iterations,
/// so over no rows, inputs of `[0][3]` and `[0][2]` are fine (the result is
/// `[0][3]`); their transposes, `[3][0]` and `[2][0]`, would fail the
/// transposed map's check of its inputs' lengths. Reshaped, nothing fails
/// over no rows (the result is `[3][0]`), and over some rows the
/// `unflatten` fails exactly when a row of the nest would (the exact-errors
/// fallback then reports the first error in sequential order).
fn with_first_row_size(
    matrix: VarId,
    soac: &Soac,
    first_cols: &mut Option<Atom>,
    row: Type,
    loc: SrcLoc,
    fresh: &mut Fresh,
    stms: &mut Vec<Stm>,
) -> VarId {
    let cols = *first_cols.get_or_insert_with(|| {
        let cols = fresh.var("cols", Type::Scalar(crate::types::ScalarType::I64));
        stms.push(Stm {
            pat: vec![cols.clone()],
            exp: Exp::Size {
                array: soac.args[0],
                dim: 1,
            },
            loc,
        });
        Atom::Var(cols.id)
    });
    let flat = fresh.var("flat", row);
    let reshaped = fresh.var("reshaped", Type::Array(row.elem(), row.rank() + 1));
    stms.push(Stm {
        pat: vec![flat.clone()],
        exp: Exp::Flatten(matrix),
        loc,
    });
    stms.push(Stm {
        pat: vec![reshaped.clone()],
        exp: Exp::Unflatten {
            array: flat.id,
            rows: soac.width,
            cols,
        },
        loc,
    });
    reshaped.id
}

/// The inner map of a function `\rows -> map g rows` whose `g` cannot fail
/// and streams each row parameter (vectors) once, using nothing else of them.
pub(super) fn map_nest(lam: &Lambda) -> Option<&Stm> {
    // Before the map, only sizes of the rows that are the map's width (the
    // transposed nest's inner width is the old outer one).
    let (stm, before) = lam.body.stms.split_last()?;
    let width_only = before.iter().all(|s| {
        matches!(s.exp, Exp::Size { dim: 0, .. })
            && matches!(&stm.exp, Exp::Soac(inner)
                if s.pat.iter().all(|v| inner.width == Atom::Var(v.id)))
    });
    if !width_only {
        return None;
    }
    let Exp::Soac(inner) = &stm.exp else {
        return None;
    };
    let SoacKind::Map(g) = &inner.kind else {
        return None;
    };
    let params: HashSet<VarId> = lam.params.iter().map(|p| p.id).collect();
    let args: HashSet<VarId> = inner.args.iter().copied().collect();
    let results: Vec<Atom> = stm.pat.iter().map(|v| Atom::Var(v.id)).collect();
    let ok = cannot_fail(g)
        && !lam.params.is_empty()
        && lam.params.iter().all(|p| p.ty.rank() == 1)
        && args == params
        && inner.args.len() == params.len()
        && lam.body.result == results
        && free_in_body(&g.body).iter().all(|v| {
            g.params.iter().any(|p| p.id == *v)
                || !(params.contains(v) || before.iter().any(|s| s.pat.iter().any(|p| p.id == *v)))
        });
    ok.then_some(stm)
}

/// The function evaluates scalar operations only, none of which can fail.
pub(super) fn cannot_fail(lam: &Lambda) -> bool {
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
