//! `--emit fusion` (clusters, fusion trees and the traffic model per entry
//! point) and `--emit fusion-dot` (the dependency graph with its clusters, for
//! Graphviz).

use super::ast::{FusedBody, FusedProgram, FusionTree, Item};
use super::traffic::function_traffic;
use crate::core::free::free_in_exp;
use crate::core::ir::{Exp, SoacKind, VarId};
use std::collections::HashMap;
use std::fmt::Write;

pub fn tree_summary(tree: &FusionTree) -> String {
    match tree {
        FusionTree::Leaf(stm) => format!("{}#{}", soac_name(&stm.soac.kind), stm.soac.label.0),
        FusionTree::Vertical {
            producer, consumer, ..
        } => {
            format!(
                "Vertical({}, {})",
                tree_summary(producer),
                tree_summary(consumer)
            )
        }
        FusionTree::Diagonal {
            producer, consumer, ..
        } => {
            format!(
                "Diagonal({}, {})",
                tree_summary(producer),
                tree_summary(consumer)
            )
        }
        FusionTree::Horizontal(a, b) => {
            format!("Horizontal({}, {})", tree_summary(a), tree_summary(b))
        }
    }
}

pub fn soac_name(kind: &SoacKind) -> &'static str {
    kind.name()
}

pub fn print_report(program: &FusedProgram) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "fusion strategy: {}", program.strategy.name());
    for f in &program.entries {
        let traffic = function_traffic(f);
        let _ = writeln!(out, "\nentry {}", f.name);
        let mut clusters = Vec::new();
        collect_clusters(&f.body, &mut clusters);
        for (id, tree) in &clusters {
            let _ = writeln!(out, "  cluster {id}: {}", tree_summary(tree));
        }
        for c in &traffic.clusters {
            let _ = writeln!(
                out,
                "  cluster {} traffic: reads {}, writes {}",
                c.cluster, c.reads, c.writes
            );
        }
        let _ = writeln!(out, "  loops: {}", traffic.loops);
        let _ = writeln!(out, "  reads: {}", traffic.reads);
        let _ = writeln!(out, "  writes: {}", traffic.writes);
    }
    out
}

fn collect_clusters<'a>(body: &'a FusedBody, out: &mut Vec<(u32, &'a FusionTree)>) {
    for item in &body.items {
        match item {
            Item::Cluster(c) => out.push((c.id.0, &c.tree)),
            Item::If {
                then_body,
                else_body,
                ..
            } => {
                collect_clusters(then_body, out);
                collect_clusters(else_body, out);
            }
            Item::Loop { form, body, .. } => {
                if let super::ast::FusedLoopForm::While { cond } = form {
                    collect_clusters(cond, out);
                }
                collect_clusters(body, out);
            }
            Item::Stm(_) => {}
        }
    }
}

/// Graphviz: one subgraph per cluster, SOAC nodes labelled by kind, edges for
/// the arrays and scalars flowing between them (dashed when read whole).
pub fn print_dot(program: &FusedProgram) -> String {
    let mut out = String::from(
        "digraph fusion {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n",
    );
    for f in &program.entries {
        let core = f.body.to_core();
        for p in &f.params {
            let _ = writeln!(
                out,
                "  \"{}_{}\" [shape=ellipse, label=\"{}\"];",
                f.name, p.id.0, p.name
            );
        }
        let mut producer_of: HashMap<VarId, String> = HashMap::new();
        for p in &f.params {
            producer_of.insert(p.id, format!("{}_{}", f.name, p.id.0));
        }
        let mut clusters = Vec::new();
        collect_clusters(&f.body, &mut clusters);
        for (id, tree) in &clusters {
            let _ = writeln!(
                out,
                "  subgraph cluster_{}_{id} {{\n    label=\"cluster {id}\"; style=rounded;",
                f.name
            );
            for leaf in tree.leaves() {
                let node = format!("{}_soac{}", f.name, leaf.soac.label.0);
                let outs: Vec<String> = leaf.pat.iter().map(|v| v.name.clone()).collect();
                let _ = writeln!(
                    out,
                    "    \"{node}\" [label=\"{}#{}\\n{}\"];",
                    soac_name(&leaf.soac.kind),
                    leaf.soac.label.0,
                    outs.join(", ")
                );
                for v in &leaf.pat {
                    producer_of.insert(v.id, node.clone());
                }
            }
            out.push_str("  }\n");
        }
        // One edge per producer and consumer: solid when an array is
        // streamed, dashed when a value is only read whole.
        let mut edges: std::collections::BTreeMap<(String, String), bool> = Default::default();
        let mut through_scalars: HashMap<VarId, String> = HashMap::new();
        for stm in &core.stms {
            if let Exp::Soac(soac) = &stm.exp {
                let node = format!("{}_soac{}", f.name, soac.label.0);
                for v in free_in_exp(&stm.exp) {
                    let src = producer_of.get(&v).or_else(|| through_scalars.get(&v));
                    if let Some(src) = src {
                        let streamed = edges.entry((src.clone(), node.clone())).or_insert(false);
                        *streamed |= soac.args.contains(&v);
                    }
                }
            } else {
                // Scalars computed from a SOAC's result carry that producer on
                // (sizes of parameters do not: they are known before any loop).
                let source = free_in_exp(&stm.exp).iter().find_map(|u| {
                    through_scalars
                        .get(u)
                        .or_else(|| producer_of.get(u).filter(|p| p.contains("_soac")))
                        .cloned()
                });
                if let Some(src) = source {
                    for v in &stm.pat {
                        through_scalars.insert(v.id, src.clone());
                    }
                }
            }
        }
        for ((src, dst), streamed) in edges {
            let style = if streamed { "solid" } else { "dashed" };
            let _ = writeln!(out, "  \"{src}\" -> \"{dst}\" [style={style}];");
        }
    }
    out.push_str("}\n");
    out
}
