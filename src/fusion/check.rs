//! The verifier of the fusion AST (`fusion::ast::FusedProgram` in, the
//! first broken invariant out): every SOAC in exactly one cluster (its
//! label at one leaf only, over the entry's bodies and the clustered
//! bodies inside functions), and every clustered body inside a function
//! keyed by its first SOAC. The core verifier does not apply as it is: a
//! fused filter's kept count may be asked for after the cluster that
//! counts it, and recomputed maps copy their functions' binders.

use super::ast::{FusedBody, FusedFunction, FusedProgram, Item};
use crate::core::ir::{Exp, SoacId};
use std::collections::HashSet;

pub fn check(program: &FusedProgram) -> Result<(), String> {
    for f in &program.entries {
        function(f).map_err(|e| format!("fusion AST, entry `{}`: {e}", f.name))?;
    }
    Ok(())
}

fn function(f: &FusedFunction) -> Result<(), String> {
    let mut labels = HashSet::new();
    body(&f.body, &mut labels)?;
    for (first, nested) in &f.nested {
        let before = labels.len();
        body(nested, &mut labels)?;
        if before == labels.len() || !labels.contains(first) {
            return Err(format!(
                "the clustered body keyed by SOAC {} does not hold it",
                first.0
            ));
        }
    }
    Ok(())
}

fn body(b: &FusedBody, labels: &mut HashSet<SoacId>) -> Result<(), String> {
    for item in &b.items {
        match item {
            Item::Stm(stm) => {
                if let Exp::Soac(soac) = &stm.exp {
                    return Err(format!("SOAC {} is outside every cluster", soac.label.0));
                }
            }
            Item::If {
                then_body,
                else_body,
                ..
            } => {
                body(then_body, labels)?;
                body(else_body, labels)?;
            }
            Item::Loop {
                form, body: inner, ..
            } => {
                if let super::ast::FusedLoopForm::While { cond } = form {
                    body(cond, labels)?;
                }
                body(inner, labels)?;
            }
            Item::Cluster(cluster) => {
                for leaf in cluster.tree.leaves() {
                    if !labels.insert(leaf.soac.label) {
                        return Err(format!("SOAC {} is in two clusters", leaf.soac.label.0));
                    }
                }
            }
        }
    }
    Ok(())
}
