//! Size forwarding before clustering: `size t 0` of an array produced by a
//! SOAC, `iota` or `replicate` becomes the width that produced it. Without
//! this, asking for an intermediate's size would read the intermediate and
//! keep it from being fused away.

use crate::core::ir::{Atom, Body, Exp, SoacKind, Stm, VarId};
use std::collections::HashMap;

pub fn forward_sizes(body: &Body) -> Body {
    forward(body, &HashMap::new())
}

fn forward(body: &Body, outer: &HashMap<VarId, Atom>) -> Body {
    let mut widths = outer.clone();
    let mut stms = Vec::with_capacity(body.stms.len());
    for stm in &body.stms {
        let exp = match &stm.exp {
            Exp::Size { array, dim: 0 } if widths.contains_key(array) => Exp::Atom(widths[array]),
            Exp::If {
                cond,
                then_body,
                else_body,
            } => Exp::If {
                cond: *cond,
                then_body: forward(then_body, &widths),
                else_body: forward(else_body, &widths),
            },
            other => other.clone(),
        };
        match &exp {
            // Only these SOACs produce arrays as long as their width.
            Exp::Soac(soac)
                if matches!(
                    soac.kind,
                    SoacKind::Map(_) | SoacKind::Scan { .. } | SoacKind::ScanRight { .. }
                ) =>
            {
                for v in &stm.pat {
                    widths.insert(v.id, soac.width);
                }
            }
            Exp::Iota(n) | Exp::Replicate { count: n, .. } => {
                widths.insert(stm.pat[0].id, *n);
            }
            _ => {}
        }
        stms.push(Stm {
            pat: stm.pat.clone(),
            exp,
            loc: stm.loc,
        });
    }
    Body {
        stms,
        result: body.result.clone(),
    }
}
