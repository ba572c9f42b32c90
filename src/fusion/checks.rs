//! Sizes before clustering: one name per size, and size checks of sizes
//! known before the body runs at its front.
//!
//! Merging row maps (`fusion::rows`) leaves a body with one `size r 0`
//! per merged map; named once, the SOACs whose widths they are have one
//! size class, so the SOACs of the merged functions can be siblings.
//!
//! `assert_eq_sizes a b` of sizes known before the body runs (constants,
//! variables from outside, `size` of arrays from outside and copies of
//! them) moves to the front of the body, so that the graph may take `a`
//! and `b` as one size class for every SOAC of the body (`graph`'s size
//! classes): `map2 (map2 (/)) xss yss` after two maps whose widths are
//! `size A 1` and `size B 1` lets those maps share a loop. The check fails
//! exactly when it did; only which of two failing checks of one run is
//! reported first may change, and the exact-errors fallback (the unfused
//! program, run again after an error) reports the first in program order.

use crate::core::ir::{Atom, Body, Exp, VarId};
use std::collections::{HashMap, HashSet};

pub fn size_checks_first(body: &Body) -> Body {
    let mut body = one_name_per_size(body);
    let defined: HashSet<VarId> = body
        .stms
        .iter()
        .flat_map(|s| s.pat.iter().map(|p| p.id))
        .collect();
    // Statements computable before the body: copies and sizes of what is
    // known then, and the checks of such sizes.
    let mut known: HashSet<VarId> = HashSet::new();
    let mut early: Vec<bool> = vec![false; body.stms.len()];
    let ready = |a: &Atom, known: &HashSet<VarId>| match a {
        Atom::Const(_) => true,
        Atom::Var(v) => !defined.contains(v) || known.contains(v),
    };
    for (i, stm) in body.stms.iter().enumerate() {
        let computable = match &stm.exp {
            Exp::Atom(a) => stm.pat.len() == 1 && ready(a, &known),
            Exp::Size { array, .. } => ready(&Atom::Var(*array), &known),
            Exp::AssertEqSizes(a, b) => ready(a, &known) && ready(b, &known),
            _ => false,
        };
        if computable {
            early[i] = true;
            known.extend(stm.pat.iter().map(|p| p.id));
        }
    }
    // Move the checks and what they need; nothing else.
    let mut needed: HashSet<VarId> = HashSet::new();
    let mut moved = vec![false; body.stms.len()];
    for i in (0..body.stms.len()).rev() {
        let stm = &body.stms[i];
        let wanted = match &stm.exp {
            Exp::AssertEqSizes(..) => early[i],
            _ => early[i] && stm.pat.iter().any(|p| needed.contains(&p.id)),
        };
        if wanted {
            moved[i] = true;
            needed.extend(crate::core::free::free_in_exp(&stm.exp));
        }
    }
    let first_other = moved.iter().position(|m| !m).unwrap_or(moved.len());
    if moved[first_other..].iter().all(|m| !m) {
        return body;
    }
    let stms = std::mem::take(&mut body.stms);
    let (front, rest): (Vec<_>, Vec<_>) =
        stms.into_iter().zip(moved).partition(|(_, moved)| *moved);
    body.stms = front.into_iter().chain(rest).map(|(s, _)| s).collect();
    body
}

/// The body with each later `size a d` of an array already asked for
/// that dimension named as the first.
fn one_name_per_size(body: &Body) -> Body {
    let mut first: HashMap<(VarId, usize), VarId> = HashMap::new();
    let mut renames: Vec<(VarId, VarId)> = Vec::new();
    let mut kept = Vec::with_capacity(body.stms.len());
    for stm in &body.stms {
        if let (Exp::Size { array, dim }, [v]) = (&stm.exp, stm.pat.as_slice()) {
            match first.get(&(*array, *dim)) {
                Some(&earlier) => {
                    renames.push((v.id, earlier));
                    continue;
                }
                None => {
                    first.insert((*array, *dim), v.id);
                }
            }
        }
        kept.push(stm.clone());
    }
    let mut out = Body {
        stms: kept,
        result: body.result.clone(),
    };
    for (from, to) in renames {
        crate::simplify::walk::rename_in_body(&mut out, from, to);
    }
    out
}
