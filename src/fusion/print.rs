//! Stable text dump of the explicit fusion AST (`arrc build --emit fused`):
//! the unfused structure as in the core dump, each cluster as its root and
//! fusion tree with the SOAC statements at the leaves.

use super::ast::{FusedBody, FusedLoopForm, FusedProgram, FusionTree, Item};
use crate::core::print::{binder, indent, Names};
use std::fmt::Write;

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
        print_body(&mut out, &f.body, 1, &names);
    }
    out
}

fn print_body(out: &mut String, body: &FusedBody, depth: usize, names: &Names) {
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
                print_body(out, then_body, depth + 1, names);
                indent(out, depth);
                out.push_str("else\n");
                print_body(out, else_body, depth + 1, names);
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
                        print_body(out, cond, depth + 1, names);
                        indent(out, depth);
                        out.push_str("do\n");
                    }
                }
                print_body(out, body, depth + 1, names);
                indent(out, depth);
                out.push_str("end\n");
            }
            Item::Cluster(cluster) => {
                indent(out, depth);
                let _ = writeln!(out, "cluster {} root", cluster.id.0);
                print_tree(out, &cluster.tree, depth + 1, names);
            }
        }
    }
    indent(out, depth);
    let _ = writeln!(out, "in ({})", names.atoms(&body.result));
}

fn print_tree(out: &mut String, tree: &FusionTree, depth: usize, names: &Names) {
    indent(out, depth);
    match tree {
        FusionTree::Leaf(stm) => {
            let _ = writeln!(out, "leaf {}#{}", soac_kind(stm), stm.soac.label.0);
            names.stm(out, &stm.clone().into_stm(), depth + 1);
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
            print_tree(out, producer, depth + 1, names);
            print_tree(out, consumer, depth + 1, names);
        }
        FusionTree::Horizontal(a, b) => {
            out.push_str("horizontal\n");
            print_tree(out, a, depth + 1, names);
            print_tree(out, b, depth + 1, names);
        }
    }
}

fn soac_kind(stm: &super::ast::SoacStm) -> &'static str {
    stm.soac.kind.name()
}
