//! Row maps fused inside: the members of one cluster in, its leaves out.
//!
//! Two maps over the rows of one matrix that share a cluster run in one
//! loop, but each would still read every row of its own: the read of the
//! matrix is only shared when their functions are fused too. So the two
//! become one map whose function runs both bodies on the same row (one
//! parameter for the shared rows); the fusion stage then clusters that
//! body like any other (`FusedFunction::nested`), where the inner SOACs
//! that stream the row are siblings. The graph gives such maps a sibling
//! pair only when each function reads the row through streaming SOACs
//! alone (`row_streamed`), so the read the clusterer credits is the read
//! the lowering makes. So are two maps over different arrays whose
//! functions read one vector from outside, each only by streaming it
//! (`shared_free_rows`): merged, the SOACs that stream it are siblings.

use super::ast::SoacStm;
use super::graph::{array_bytes, ArrayUse, Edge, Node, SizeClass};
use crate::core::free::{free_in_exp, free_in_exp_except_soac_args, free_in_soac_except_args};
use crate::core::ir::{Atom, Body, Exp, Lambda, SoacKind, Type, Var, VarId};
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The members of a cluster (statement indices, in order) as leaves, with
/// every two maps over the rows of a common matrix merged into one.
pub fn merge_row_maps(body: &Body, members: &[usize]) -> Vec<SoacStm> {
    let mut leaves: Vec<SoacStm> = members
        .iter()
        .filter_map(|&m| {
            let s = &body.stms[m];
            match &s.exp {
                Exp::Soac(soac) => Some(SoacStm {
                    pat: s.pat.clone(),
                    soac: soac.clone(),
                    loc: s.loc,
                }),
                _ => None,
            }
        })
        .collect();
    let shares_rows = |a: &SoacStm, b: &SoacStm| {
        a.soac.args.iter().any(|x| {
            b.soac.args.contains(x) && row_streamed(&a.soac, *x) && row_streamed(&b.soac, *x)
        }) || !shared_free_rows(&a.soac, &b.soac).is_empty()
    };
    // Read by a statement outside the cluster, or a result of the body.
    let mut outside: HashSet<VarId> = body
        .result
        .iter()
        .filter_map(|a| match a {
            Atom::Var(v) => Some(*v),
            Atom::Const(_) => None,
        })
        .collect();
    for (i, stm) in body.stms.iter().enumerate() {
        if !members.contains(&i) {
            outside.extend(free_in_exp(&stm.exp));
        }
    }
    'search: loop {
        for a in 0..leaves.len() {
            for b in a + 1..leaves.len() {
                let made: Vec<VarId> = leaves[a].pat.iter().map(|v| v.id).collect();
                let reads_made = |l: &SoacStm| {
                    l.soac.args.iter().any(|x| made.contains(x))
                        || free_in_exp_except_soac_args(&Exp::Soac(l.soac.clone()))
                            .iter()
                            .any(|x| made.contains(x))
                };
                if reads_made(&leaves[b]) || !shares_rows(&leaves[a], &leaves[b]) {
                    // A producer of rows and their consumer: one map whose
                    // function runs the consumer's body on the rows the
                    // producer's body makes, so the inner SOACs can fuse
                    // vertically too.
                    if leaves[a + 1..b].iter().any(reads_made) {
                        continue;
                    }
                    let others_read = |v: VarId| {
                        outside.contains(&v)
                            || leaves
                                .iter()
                                .enumerate()
                                .any(|(k, l)| k != a && k != b && reads_made_var(l, v))
                    };
                    if let Some(m) = merged_vertically(&leaves[a], &leaves[b], &others_read) {
                        leaves.remove(b);
                        leaves.remove(a);
                        leaves.insert(b - 1, m);
                        continue 'search;
                    }
                    continue;
                }
                // The merged map runs where `b` stood: nothing from `a` to
                // `b` may read what `a` makes.
                let reads_a = leaves[a + 1..=b].iter().any(|l| {
                    l.soac.args.iter().any(|x| made.contains(x))
                        || free_in_exp_except_soac_args(&Exp::Soac(l.soac.clone()))
                            .iter()
                            .any(|x| made.contains(x))
                });
                if reads_a {
                    continue;
                }
                let second = leaves.remove(b);
                let first = leaves.remove(a);
                leaves.insert(b - 1, merged(first, second));
                continue 'search;
            }
        }
        return leaves;
    }
}

/// `a` and `b` as one map: `b`'s parameters for arguments `a` also has
/// become `a`'s, and its body runs after `a`'s.
fn merged(mut a: SoacStm, b: SoacStm) -> SoacStm {
    let (SoacKind::Map(la), SoacKind::Map(lb)) = (&a.soac.kind, &b.soac.kind) else {
        return a;
    };
    let mut params = la.params.clone();
    let mut args = a.soac.args.clone();
    let mut body_b = lb.body.clone();
    for (p, x) in lb.params.iter().zip(&b.soac.args) {
        match args.iter().position(|y| y == x) {
            Some(k) => crate::simplify::walk::rename_in_body(&mut body_b, p.id, params[k].id),
            None => {
                params.push(p.clone());
                args.push(*x);
            }
        }
    }
    let mut stms = la.body.stms.clone();
    stms.extend(body_b.stms);
    let mut result = la.body.result.clone();
    result.extend(body_b.result);
    let mut ret = la.ret.clone();
    ret.extend(lb.ret.iter().copied());
    let mut pat = std::mem::take(&mut a.pat);
    pat.extend(b.pat);
    map_like(&a, pat, params, Body { stms, result }, ret, args)
}

/// A map with `a`'s label, width and location and the given parts.
fn map_like(
    a: &SoacStm,
    pat: Vec<Var>,
    params: Vec<Var>,
    body: Body,
    ret: Vec<Type>,
    args: Vec<VarId>,
) -> SoacStm {
    SoacStm {
        pat,
        soac: crate::core::ir::Soac {
            label: a.soac.label,
            width: a.soac.width,
            kind: SoacKind::Map(Lambda { params, body, ret }),
            args,
            sequential: a.soac.sequential,
        },
        loc: a.loc,
    }
}

/// Row `row` that function `lam` makes has the same size in every
/// iteration: a parameter (a row of a regular array), or the result of a
/// map or scan whose width is a constant, the size of such a row, or a
/// variable from outside the function.
fn regular_row(lam: &Lambda, row: VarId) -> bool {
    if lam.params.iter().any(|p| p.id == row) {
        return true;
    }
    let definer = |v: VarId| {
        lam.body
            .stms
            .iter()
            .find(|s| s.pat.iter().any(|p| p.id == v))
    };
    let Some(stm) = definer(row) else {
        return false;
    };
    let Exp::Soac(inner) = &stm.exp else {
        return false;
    };
    if !matches!(
        inner.kind,
        SoacKind::Map(_) | SoacKind::Scan { .. } | SoacKind::ScanRight { .. }
    ) {
        return false;
    }
    match inner.width {
        Atom::Const(_) => true,
        Atom::Var(w) => match definer(w).map(|s| &s.exp) {
            Some(Exp::Size { array, .. }) => regular_row(lam, *array),
            Some(_) => false,
            None => lam.params.iter().all(|p| p.id != w),
        },
    }
}

/// `leaf` reads `v`, streamed or otherwise.
fn reads_made_var(leaf: &SoacStm, v: VarId) -> bool {
    leaf.soac.args.contains(&v)
        || free_in_exp_except_soac_args(&Exp::Soac(leaf.soac.clone())).contains(&v)
}

/// Producer `a` and consumer `b`, maps of one cluster (so of one width) where `b` streams rows
/// of arrays `a` makes (and reads nothing else of `a`), as one map: `b`'s
/// row parameters become the rows `a`'s body makes. `a`'s arrays that
/// `keep` names stay results; the others are fused away.
fn merged_vertically(a: &SoacStm, b: &SoacStm, keep: &dyn Fn(VarId) -> bool) -> Option<SoacStm> {
    let (SoacKind::Map(la), SoacKind::Map(lb)) = (&a.soac.kind, &b.soac.kind) else {
        return None;
    };
    let made: Vec<VarId> = a.pat.iter().map(|v| v.id).collect();
    let streams = b.soac.args.iter().any(|x| made.contains(x));
    let rows_only = a
        .pat
        .iter()
        .all(|v| v.ty.rank() >= 2 || !b.soac.args.contains(&v.id));
    let reads_whole = free_in_exp_except_soac_args(&Exp::Soac(b.soac.clone()))
        .iter()
        .any(|x| made.contains(x));
    if !streams || !rows_only || reads_whole {
        return None;
    }
    let mut params = la.params.clone();
    let mut args = a.soac.args.clone();
    let mut body_b = lb.body.clone();
    for (p, x) in lb.params.iter().zip(&b.soac.args) {
        if let Some(k) = made.iter().position(|y| y == x) {
            let Some(Atom::Var(row)) = la.body.result.get(k) else {
                return None;
            };
            // Storing rows checks that they have one size; fused away,
            // nothing would, so only rows of one size by construction.
            if !regular_row(la, *row) {
                return None;
            }
            crate::simplify::walk::rename_in_body(&mut body_b, p.id, *row);
        } else if let Some(k) = args.iter().position(|y| y == x) {
            crate::simplify::walk::rename_in_body(&mut body_b, p.id, params[k].id);
        } else {
            params.push(p.clone());
            args.push(*x);
        }
    }
    let kept: Vec<usize> = (0..a.pat.len()).filter(|&k| keep(a.pat[k].id)).collect();
    let mut stms = la.body.stms.clone();
    stms.extend(body_b.stms);
    let mut result: Vec<Atom> = kept.iter().map(|&k| la.body.result[k]).collect();
    result.extend(body_b.result);
    let mut ret: Vec<_> = kept
        .iter()
        .filter_map(|&k| la.ret.get(k).copied())
        .collect();
    ret.extend(lb.ret.iter().copied());
    let mut pat: Vec<_> = kept.iter().map(|&k| a.pat[k].clone()).collect();
    pat.extend(b.pat.iter().cloned());
    Some(map_like(a, pat, params, Body { stms, result }, ret, args))
}

/// `soac` is a map over the rows of `array` (a matrix or more) whose
/// function reads each row only as a streamed argument of SOACs.
pub fn row_streamed(soac: &crate::core::ir::Soac, array: VarId) -> bool {
    let SoacKind::Map(lam) = &soac.kind else {
        return false;
    };
    let Some(k) = soac.args.iter().position(|x| *x == array) else {
        return false;
    };
    let row = &lam.params[k];
    row.ty.rank() > 0 && only_streamed(&lam.body, row.id)
}

/// `body` reads `v` at least once, and only as a streamed argument of
/// its SOACs (or for its size), never returns it.
fn only_streamed(body: &Body, v: VarId) -> bool {
    let mut streamed = false;
    for stm in &body.stms {
        match &stm.exp {
            Exp::Soac(inner) => {
                if free_in_exp_except_soac_args(&stm.exp).contains(&v) {
                    return false;
                }
                streamed |= inner.args.contains(&v);
            }
            // Its size reads no element.
            Exp::Size { .. } => {}
            exp => {
                if free_in_exp(exp).contains(&v) {
                    return false;
                }
            }
        }
    }
    streamed && !body.result.contains(&Atom::Var(v))
}

/// The vectors from outside that both maps `a` and `b` read whole in
/// every iteration, each only through SOACs of their functions that
/// stream it (a row of `W` in both dot products of
/// `map (\c -> dot w c) (transpose A)` and `.. (transpose WH)`): merged
/// (`merge_row_maps`), the inner SOACs that stream it are siblings, and
/// fused they read it once per iteration instead of twice. With the type
/// of the vector, from an inner map's parameter.
pub fn shared_free_rows(
    a: &crate::core::ir::Soac,
    b: &crate::core::ir::Soac,
) -> Vec<(VarId, Option<Type>)> {
    shared_of(a, &free_streamed_vectors(a), &free_streamed_vectors(b))
}

/// `shared_free_rows` of maps `a` and `b` whose `free_streamed_vectors`
/// are `in_a` and `in_b` (computed once per map where many pairs are
/// tried).
pub fn shared_of(
    a: &crate::core::ir::Soac,
    in_a: &[VarId],
    in_b: &[VarId],
) -> Vec<(VarId, Option<Type>)> {
    let SoacKind::Map(la) = &a.kind else {
        return Vec::new();
    };
    in_a.iter()
        .filter(|v| in_b.contains(v))
        .map(|&v| (v, element_type(&la.body, v)))
        .collect()
}

/// The vectors from outside a map that its function reads whole in every
/// iteration, only through SOACs that stream it: not its arguments nor
/// its width. Empty for other SOACs.
pub fn free_streamed_vectors(soac: &crate::core::ir::Soac) -> Vec<VarId> {
    let SoacKind::Map(lam) = &soac.kind else {
        return Vec::new();
    };
    free_in_soac_except_args(soac)
        .into_iter()
        .filter(|&v| {
            !soac.args.contains(&v) && Atom::Var(v) != soac.width && only_streamed(&lam.body, v)
        })
        .collect()
}

/// Sibling pairs of maps of one width that read a vector from outside the
/// body whole in every iteration, each through SOACs of its function that
/// stream it (`shared_free_rows`): merged when they share a cluster
/// (`fusion::rows`), their inner SOACs read it once per iteration. Each
/// such vector is a term of the objective of `width` passes over it, read
/// once per cluster of its readers. Only vectors no statement of the body
/// defines or streams, so that the term is theirs alone.
pub(super) fn free_row_pairs(
    body: &Body,
    graph: &DiGraph<Node, Edge>,
    definer: &HashMap<VarId, usize>,
    streamed: &BTreeMap<VarId, Vec<usize>>,
    pairs: &mut BTreeMap<(usize, usize), Vec<VarId>>,
) -> BTreeMap<VarId, ArrayUse> {
    // Only maps with such vectors, each map's found once: pairs of all
    // maps of one width grow with the square of a large body.
    let maps: Vec<(usize, &crate::core::ir::Soac, &SizeClass, Vec<VarId>)> = body
        .stms
        .iter()
        .enumerate()
        .filter_map(
            |(i, stm)| match (&stm.exp, &graph[NodeIndex::new(i)].soac) {
                (Exp::Soac(soac), Some(node)) if node.kind == "map" => {
                    let vectors = free_streamed_vectors(soac);
                    (!vectors.is_empty()).then_some((i, soac, &node.width, vectors))
                }
                _ => None,
            },
        )
        .collect();
    let mut uses: BTreeMap<VarId, (ArrayUse, SizeClass)> = BTreeMap::new();
    for (k, (a, sa, wa, in_a)) in maps.iter().enumerate() {
        let (a, wa) = (*a, *wa);
        for (b, _, wb, in_b) in &maps[k + 1..] {
            let b = *b;
            if wa != *wb {
                continue;
            }
            for (v, ty) in shared_of(sa, in_a, in_b) {
                if definer.contains_key(&v) || streamed.contains_key(&v) {
                    continue;
                }
                let passes = match wa {
                    SizeClass::Const(c) => (*c).max(0) as f64,
                    _ => super::ilp::SYMBOLIC_SIZE,
                };
                let (entry, width) = uses.entry(v).or_insert_with(|| {
                    let bytes = passes * array_bytes(ty.as_ref(), None);
                    let entry = ArrayUse {
                        bytes,
                        producer: None,
                        readers: Vec::new(),
                    };
                    (entry, wa.clone())
                });
                // One term per vector: readers of one width.
                if width != wa {
                    continue;
                }
                for r in [a, b] {
                    if !entry.readers.contains(&r) {
                        entry.readers.push(r);
                    }
                }
                let shared = pairs.entry((a, b)).or_default();
                if !shared.contains(&v) {
                    shared.push(v);
                }
            }
        }
    }
    uses.into_iter()
        .map(|(v, (mut entry, _))| {
            entry.readers.sort_unstable();
            (v, entry)
        })
        .collect()
}

/// The type of vector `v`, from a map that streams it.
fn element_type(body: &Body, v: VarId) -> Option<Type> {
    body.stms.iter().find_map(|stm| match &stm.exp {
        Exp::Soac(inner) => match &inner.kind {
            SoacKind::Map(f) => {
                let k = inner.args.iter().position(|x| *x == v)?;
                f.params
                    .get(k)
                    .map(|p| Type::Array(p.ty.elem(), p.ty.rank() + 1))
            }
            _ => None,
        },
        _ => None,
    })
}

/// `soac` is a map over the rows of `array` whose function reads each row
/// whole inside a map over the rows of another array: a matrix product's
/// left operand, `map (\r -> map (\c -> f32.sum (map2 (*) r c)) bt) array`,
/// whose row is read again for every output. Fused with the map that makes
/// `array`, the row is rebuilt inside the product's loop, and the product
/// no longer has the shape of the blocked kernels (`loopy::block`,
/// `loopy::outer`), which read it from memory; so the graph keeps such a
/// producer apart, and it costs one pass over `array` (docs/fusion.md).
pub fn product_operand(soac: &crate::core::ir::Soac, array: VarId) -> bool {
    let SoacKind::Map(lam) = &soac.kind else {
        return false;
    };
    let Some(k) = soac.args.iter().position(|x| *x == array) else {
        return false;
    };
    let row = &lam.params[k];
    row.ty.rank() > 0
        && lam.body.stms.iter().any(|stm| match &stm.exp {
            Exp::Soac(inner) => {
                matches!(&inner.kind, SoacKind::Map(f) if f.params.iter().any(|p| p.ty.rank() > 0))
                    && free_in_exp_except_soac_args(&stm.exp).contains(&row.id)
            }
            _ => false,
        })
}
