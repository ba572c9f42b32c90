//! Stable text dump of the explicit fusion AST (`arrc build --emit fused`):
//! the unfused structure as in the core dump, each cluster as its root and
//! fusion tree with the SOAC statements at the leaves; after a leaf, the
//! clusters of the bodies inside its function (`FusedFunction::nested`).

use super::ast::{FusedBody, FusedLoopForm, FusedProgram, FusionTree, Item};
use crate::core::ir::{Body, Exp, LoopForm, Soac, SoacId};
use crate::core::print::{binder, indent, Names};
use std::collections::BTreeMap;
use std::fmt::Write;

/// What the printing of one entry needs besides the body at hand.
struct Printer<'a> {
    names: &'a Names,
    nested: &'a BTreeMap<SoacId, FusedBody>,
}

pub fn print_program(program: &FusedProgram) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "-- fusion strategy: {}", program.strategy.name());
    for f in &program.entries {
        out.push('\n');
        let names = Names::for_function(&f.params, &f.size_params, &f.body.to_core());
        let params: Vec<String> = f.params.iter().map(binder).collect();
        let ret: Vec<String> = f
            .ret
            .iter()
            .map(|t| crate::core::print::type_str(*t))
            .collect();
        let _ = writeln!(
            out,
            "entry {} ({}) : ({}) =",
            f.name,
            params.join(", "),
            ret.join(", ")
        );
        let printer = Printer {
            names: &names,
            nested: &f.nested,
        };
        print_body(&mut out, &f.body, 1, &printer);
    }
    out
}

fn print_body(out: &mut String, body: &FusedBody, depth: usize, p: &Printer) {
    let names = p.names;
    for item in &body.items {
        match item {
            Item::Stm(stm) => names.stm(out, stm, depth),
            Item::If {
                pat,
                cond,
                then_body,
                else_body,
                ..
            } => {
                indent(out, depth);
                let pat: Vec<String> = pat.iter().map(binder).collect();
                let _ = writeln!(out, "let {} = if {} then", pat.join(", "), names.atom(cond));
                print_body(out, then_body, depth + 1, p);
                indent(out, depth);
                out.push_str("else\n");
                print_body(out, else_body, depth + 1, p);
                indent(out, depth);
                out.push_str("end\n");
            }
            Item::Loop {
                pat,
                params,
                form,
                body,
                ..
            } => {
                indent(out, depth);
                let pat: Vec<String> = pat.iter().map(binder).collect();
                let params: Vec<String> = params
                    .iter()
                    .map(|(v, init)| format!("{} = {}", binder(v), names.atom(init)))
                    .collect();
                let _ = write!(out, "let {} = loop ({})", pat.join(", "), params.join(", "));
                match form {
                    FusedLoopForm::For { index, bound } => {
                        let _ = writeln!(out, " for {} < {} do", binder(index), names.atom(bound));
                    }
                    FusedLoopForm::While { cond } => {
                        out.push_str(" while\n");
                        print_body(out, cond, depth + 1, p);
                        indent(out, depth);
                        out.push_str("do\n");
                    }
                }
                print_body(out, body, depth + 1, p);
                indent(out, depth);
                out.push_str("end\n");
            }
            Item::Cluster(cluster) => {
                indent(out, depth);
                let _ = writeln!(out, "cluster {} root", cluster.id.0);
                print_tree(out, &cluster.tree, depth + 1, p);
            }
        }
    }
    indent(out, depth);
    let _ = writeln!(out, "in ({})", names.atoms(&body.result));
}

fn print_tree(out: &mut String, tree: &FusionTree, depth: usize, p: &Printer) {
    let names = p.names;
    indent(out, depth);
    match tree {
        FusionTree::Leaf(stm) => {
            let _ = writeln!(out, "leaf {}#{}", soac_kind(stm), stm.soac.label.0);
            names.stm(out, &stm.clone().into_stm(), depth + 1);
            if let Some(lam) = stm.soac.kind.lambda() {
                print_nested(out, &stm.soac, &lam.body, depth + 1, p);
            }
        }
        FusionTree::Vertical {
            producer,
            consumer,
            fused,
        }
        | FusionTree::Diagonal {
            producer,
            consumer,
            fused,
        } => {
            let kind = if matches!(tree, FusionTree::Vertical { .. }) {
                "vertical"
            } else {
                "diagonal"
            };
            let fused: Vec<String> = fused.iter().map(|v| names.var(*v)).collect();
            let _ = writeln!(out, "{kind} through ({})", fused.join(", "));
            print_tree(out, producer, depth + 1, p);
            print_tree(out, consumer, depth + 1, p);
        }
        FusionTree::Horizontal(a, b) => {
            out.push_str("horizontal\n");
            print_tree(out, a, depth + 1, p);
            print_tree(out, b, depth + 1, p);
        }
    }
}

/// The clustered bodies inside `owner`'s function `body`: the body itself
/// when the fusion stage clustered it, else those in it, at any depth.
fn print_nested(out: &mut String, owner: &Soac, body: &Body, depth: usize, p: &Printer) {
    let first = body.stms.iter().find_map(|s| match &s.exp {
        Exp::Soac(soac) => Some(soac.label),
        _ => None,
    });
    if let Some(fused) = first.and_then(|label| p.nested.get(&label)) {
        indent(out, depth);
        let _ = writeln!(out, "in {}#{}", owner.kind.name(), owner.label.0);
        print_body(out, fused, depth + 1, p);
        return;
    }
    for stm in &body.stms {
        match &stm.exp {
            Exp::Soac(soac) => {
                if let Some(lam) = soac.kind.lambda() {
                    print_nested(out, soac, &lam.body, depth, p);
                }
            }
            Exp::If {
                then_body,
                else_body,
                ..
            } => {
                print_nested(out, owner, then_body, depth, p);
                print_nested(out, owner, else_body, depth, p);
            }
            Exp::Loop { form, body, .. } => {
                if let LoopForm::While { cond } = form {
                    print_nested(out, owner, cond, depth, p);
                }
                print_nested(out, owner, body, depth, p);
            }
            _ => {}
        }
    }
}

fn soac_kind(stm: &super::ast::SoacStm) -> &'static str {
    stm.soac.kind.name()
}
