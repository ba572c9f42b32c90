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
//! the lowering makes.

use super::ast::SoacStm;
use crate::core::free::free_in_exp_except_soac_args;
use crate::core::ir::{Body, Exp, Lambda, SoacKind, VarId};

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
        })
    };
    'search: loop {
        for a in 0..leaves.len() {
            for b in a + 1..leaves.len() {
                if !shares_rows(&leaves[a], &leaves[b]) {
                    continue;
                }
                // The merged map runs where `b` stood: nothing from `a` to
                // `b` may read what `a` makes.
                let made: Vec<VarId> = leaves[a].pat.iter().map(|v| v.id).collect();
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
fn merged(a: SoacStm, b: SoacStm) -> SoacStm {
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
    let mut pat = a.pat;
    pat.extend(b.pat);
    SoacStm {
        pat,
        soac: crate::core::ir::Soac {
            label: a.soac.label,
            width: a.soac.width,
            kind: SoacKind::Map(Lambda {
                params,
                body: Body { stms, result },
                ret,
            }),
            args,
        },
        loc: a.loc,
    }
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
    if row.ty.rank() == 0 {
        return false;
    }
    let mut streamed = false;
    for stm in &lam.body.stms {
        match &stm.exp {
            Exp::Soac(inner) => {
                if free_in_exp_except_soac_args(&stm.exp).contains(&row.id) {
                    return false;
                }
                streamed |= inner.args.contains(&row.id);
            }
            // Its size reads no element.
            Exp::Size { .. } => {}
            exp => {
                if crate::core::free::free_in_exp(exp).contains(&row.id) {
                    return false;
                }
            }
        }
    }
    let in_result = lam
        .body
        .result
        .contains(&crate::core::ir::Atom::Var(row.id));
    streamed && !in_result
}
