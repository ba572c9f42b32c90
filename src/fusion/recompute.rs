//! Recomputation of cheap maps (Accelerate fuses a cheap producer into every
//! consumer): a `map` of one array through a few scalar operations that
//! several SOACs stream becomes one copy per consumer, each free to fuse
//! with its own consumer. A `Body` in, a `Body` out, before the fusion graph
//! is built.
//!
//! With one input array, this never adds traffic in the clusterer's model:
//! with its consumers in `c` clusters the shared map costs `n` reads of its
//! input, `n` writes and `c - 1` reads of its output (`(c + 1) n`), the
//! copies `c n` reads of the input. In bytes it saves more when the map
//! widens its elements (`f64.f32 x`).

use crate::core::free::{free_in_exp, free_in_exp_except_soac_args};
use crate::core::fresh::Fresh;
use crate::core::ir::{Atom, Body, Exp, Lambda, Soac, SoacKind, Stm, VarId};
use std::collections::{BTreeMap, HashMap};

/// Scalar statements a lambda may have and still be cheap to recompute.
const CHEAP_STATEMENTS: usize = 3;

/// `body` with each cheap map that several SOACs stream replaced by one
/// copy per consumer, placed just before it (its input and the scalars it
/// uses are defined before the original).
pub fn duplicate_cheap_maps(body: &Body, fresh: &mut Fresh) -> Body {
    let mut uses: HashMap<VarId, Vec<usize>> = HashMap::new();
    for (i, stm) in body.stms.iter().enumerate() {
        for v in free_in_exp(&stm.exp) {
            uses.entry(v).or_default().push(i);
        }
    }
    let results: Vec<VarId> = body
        .result
        .iter()
        .filter_map(|a| match a {
            Atom::Var(v) => Some(*v),
            Atom::Const(_) => None,
        })
        .collect();
    // Statement index of a duplicated map, to the consumers' indices.
    // Later maps first: a map that feeds a duplicated map stays as it is.
    let mut duplicated: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, stm) in body.stms.iter().enumerate().rev() {
        let Exp::Soac(soac) = &stm.exp else { continue };
        let [out] = stm.pat.as_slice() else { continue };
        if !is_cheap_map(soac) || results.contains(&out.id) {
            continue;
        }
        let mut readers = uses.get(&out.id).cloned().unwrap_or_default();
        readers.dedup();
        let all_streamed = readers
            .iter()
            .all(|&j| streams(&body.stms[j], out.id, &soac.width));
        let feeds_duplicate = readers.iter().any(|j| duplicated.contains_key(j));
        if readers.len() >= 2 && all_streamed && !feeds_duplicate {
            duplicated.insert(i, readers);
        }
    }
    if duplicated.is_empty() {
        return body.clone();
    }
    // Consumer index to the (original output, copy statement) pairs.
    let mut copies: HashMap<usize, Vec<(VarId, Stm)>> = HashMap::new();
    for (&i, readers) in &duplicated {
        let original = &body.stms[i];
        let Exp::Soac(soac) = &original.exp else {
            continue;
        };
        for &j in readers {
            let mut pat = original.pat.clone();
            for p in &mut pat {
                p.id = fresh.id();
            }
            let copy = Stm {
                pat,
                exp: Exp::Soac(Soac {
                    label: fresh.soac(),
                    ..soac.clone()
                }),
                loc: original.loc,
            };
            copies
                .entry(j)
                .or_default()
                .push((original.pat[0].id, copy));
        }
    }
    let mut stms = Vec::with_capacity(body.stms.len() + copies.len());
    for (i, stm) in body.stms.iter().enumerate() {
        if duplicated.contains_key(&i) {
            continue;
        }
        let mut stm = stm.clone();
        for (old, copy) in copies.remove(&i).unwrap_or_default() {
            if let Exp::Soac(soac) = &mut stm.exp {
                for a in &mut soac.args {
                    if *a == old {
                        *a = copy.pat[0].id;
                    }
                }
            }
            stms.push(copy);
        }
        stms.push(stm);
    }
    Body {
        stms,
        result: body.result.clone(),
    }
}

/// A map of one array of scalars to one array of scalars through at most
/// `CHEAP_STATEMENTS` scalar operations that cannot fail.
fn is_cheap_map(soac: &Soac) -> bool {
    let SoacKind::Map(lam) = &soac.kind else {
        return false;
    };
    soac.args.len() == 1 && scalar_lambda(lam) && lam.body.stms.len() <= CHEAP_STATEMENTS && {
        lam.body.stms.iter().all(|s| match &s.exp {
            Exp::BinOp(op, _, _) => !op.may_fail(),
            Exp::UnOp(..) | Exp::Convert(..) | Exp::Atom(_) => true,
            _ => false,
        })
    }
}

fn scalar_lambda(lam: &Lambda) -> bool {
    lam.params.iter().all(|p| p.ty.rank() == 0) && lam.ret.iter().all(|t| t.rank() == 0)
}

/// `stm` is a SOAC of width `width` that reads `v` only as a streamed
/// argument, of a kind a producer can fuse into.
fn streams(stm: &Stm, v: VarId, width: &Atom) -> bool {
    let Exp::Soac(soac) = &stm.exp else {
        return false;
    };
    let fusible_kind = matches!(
        soac.kind,
        SoacKind::Map(_)
            | SoacKind::Reduce { .. }
            | SoacKind::Scan { .. }
            | SoacKind::ScanRight { .. }
            | SoacKind::Hist { .. }
            | SoacKind::Scatter { .. }
    );
    // A hist of rows runs sequentially and fuses with nothing.
    let rows_of_bins =
        matches!(soac.kind, SoacKind::Hist { .. }) && stm.pat.iter().any(|p| p.ty.rank() > 1);
    fusible_kind
        && !rows_of_bins
        && soac.width == *width
        && soac.args.contains(&v)
        && !free_in_exp_except_soac_args(&stm.exp).contains(&v)
}
