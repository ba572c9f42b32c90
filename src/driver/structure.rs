//! `arrc test -s`: the `structure { ... }` lines of test blocks, checked
//! against arrc's fused program (`futhark test -s` checks them against
//! Futhark's IR).
//!
//! Futhark counts constructs of its own IR after a pipeline. Three map onto
//! arrc's loop nests: `Screma` (a fused map/reduce/scan: one of arrc's
//! clusters, or a SOAC nested in a cluster's function), `Hist` (a cluster
//! holding a histogram) and `Loop` (a sequential loop). A path such as
//! `/Loop/Screma` counts the clusters directly inside top-level loops; one
//! without a leading `/` counts matches at any depth (what is inside an
//! `if` is under `If`, which paths cannot name here). SOACs inside a
//! function count as the clusters the fusion stage made of them. Lines naming other
//! constructs (`Replicate`, `Index`, `WithAcc`, ...) or other pipelines
//! (`structure gpu { ... }`, `gpu-mem`, `seq-mem`, ...) have no counterpart
//! and are ignored.

use super::pipeline::{self, Options};
use super::testblock::TestBlock;
use crate::core::ir::{Body, Exp, SoacId, SoacKind};
use crate::fusion::ast::{FusedBody, FusedLoopForm, FusionTree, Item};
use std::collections::BTreeMap;
use std::path::Path;

const KNOWN: &[&str] = &["Screma", "Hist", "Loop"];

/// Checks every default-pipeline `structure` line of `blocks` whose paths
/// arrc can map, recording one result per line through `record`.
pub fn test_structure(
    file: &Path,
    blocks: &[TestBlock],
    options: &Options,
    mut record: impl FnMut(&str, Result<(), String>),
) {
    let name = file.display().to_string();
    let specs: Vec<_> = blocks
        .iter()
        .flat_map(|b| &b.structure)
        .filter(|s| s.pipeline.is_none())
        .filter(|s| s.counts.iter().any(|(path, _)| checkable(path)))
        .collect();
    if specs.is_empty() {
        return;
    }
    let goal = pipeline::Goal::Fused;
    let fused = match pipeline::compile(file, options, goal, &mut pipeline::Session::new(None)) {
        Ok(pipeline::Output::Fused(f)) => f,
        Ok(_) => return record(&name, Err("no fused program".into())),
        Err(failure) => return record(&name, Err(failure.render())),
    };
    let mut paths = Vec::new();
    for entry in &fused.entries {
        let walk = Walk {
            nested: &entry.nested,
        };
        walk.body(&entry.body, &mut Vec::new(), &mut paths);
    }
    for spec in specs {
        let what = format!("{name}:{} (structure)", spec.line);
        let mut wrong = Vec::new();
        for (path, expected) in spec.counts.iter().filter(|(p, _)| checkable(p)) {
            let found = count(&paths, path);
            if found != *expected {
                wrong.push(format!("{path}: {found}, expected {expected}"));
            }
        }
        record(
            &what,
            if wrong.is_empty() {
                Ok(())
            } else {
                Err(wrong.join("; "))
            },
        );
    }
}

fn checkable(path: &str) -> bool {
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    !parts.is_empty() && parts.iter().all(|p| KNOWN.contains(p))
}

/// How many constructs `pattern` matches among `paths` (each the names from
/// the top level down to a construct).
fn count(paths: &[Vec<&'static str>], pattern: &str) -> usize {
    let anchored = pattern.starts_with('/');
    let want: Vec<&str> = pattern.trim_start_matches('/').split('/').collect();
    paths
        .iter()
        .filter(|p| {
            if anchored {
                p.as_slice() == want.as_slice()
            } else {
                p.ends_with(&want)
            }
        })
        .count()
}

/// Walks a fused entry; a function body that the fusion stage clustered
/// (`FusedFunction::nested`) counts its clusters, as the lowering runs them.
struct Walk<'a> {
    nested: &'a BTreeMap<SoacId, FusedBody>,
}

impl Walk<'_> {
    fn body(
        &self,
        body: &FusedBody,
        prefix: &mut Vec<&'static str>,
        out: &mut Vec<Vec<&'static str>>,
    ) {
        for item in &body.items {
            match item {
                Item::Stm(stm) => self.exp(&stm.exp, prefix, out),
                Item::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    prefix.push("If");
                    self.body(then_body, prefix, out);
                    self.body(else_body, prefix, out);
                    prefix.pop();
                }
                Item::Loop { form, body, .. } => {
                    prefix.push("Loop");
                    out.push(prefix.clone());
                    if let FusedLoopForm::While { cond } = form {
                        self.body(cond, prefix, out);
                    }
                    self.body(body, prefix, out);
                    prefix.pop();
                }
                Item::Cluster(cluster) => {
                    let leaves = cluster.tree.leaves();
                    let hist = leaves
                        .iter()
                        .any(|l| matches!(l.soac.kind, SoacKind::Hist { .. }));
                    prefix.push(if hist { "Hist" } else { "Screma" });
                    out.push(prefix.clone());
                    self.tree(&cluster.tree, prefix, out);
                    prefix.pop();
                }
            }
        }
    }

    /// The SOACs and loops inside the functions of a cluster's SOACs.
    fn tree(
        &self,
        tree: &FusionTree,
        prefix: &mut Vec<&'static str>,
        out: &mut Vec<Vec<&'static str>>,
    ) {
        for leaf in tree.leaves() {
            if let Some(lambda) = leaf.soac.kind.lambda() {
                self.core(&lambda.body, prefix, out);
            }
        }
    }

    fn core(&self, body: &Body, prefix: &mut Vec<&'static str>, out: &mut Vec<Vec<&'static str>>) {
        let first = body.stms.iter().find_map(|s| match &s.exp {
            Exp::Soac(soac) => Some(soac.label),
            _ => None,
        });
        if let Some(clustered) = first.and_then(|l| self.nested.get(&l)) {
            return self.body(clustered, prefix, out);
        }
        for stm in &body.stms {
            self.exp(&stm.exp, prefix, out);
        }
    }

    fn exp(&self, exp: &Exp, prefix: &mut Vec<&'static str>, out: &mut Vec<Vec<&'static str>>) {
        match exp {
            Exp::Soac(soac) => {
                let hist = matches!(soac.kind, SoacKind::Hist { .. });
                prefix.push(if hist { "Hist" } else { "Screma" });
                out.push(prefix.clone());
                if let Some(lambda) = soac.kind.lambda() {
                    self.core(&lambda.body, prefix, out);
                }
                prefix.pop();
            }
            Exp::Loop { body, .. } => {
                prefix.push("Loop");
                out.push(prefix.clone());
                self.core(body, prefix, out);
                prefix.pop();
            }
            Exp::If {
                then_body,
                else_body,
                ..
            } => {
                prefix.push("If");
                self.core(then_body, prefix, out);
                self.core(else_body, prefix, out);
                prefix.pop();
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_match_anchored_and_anywhere() {
        let paths = vec![
            vec!["Screma"],
            vec!["Loop"],
            vec!["Loop", "Screma"],
            vec!["Screma", "Screma"],
        ];
        assert_eq!(count(&paths, "/Screma"), 1);
        assert_eq!(count(&paths, "Screma"), 3);
        assert_eq!(count(&paths, "/Loop/Screma"), 1);
        assert_eq!(count(&paths, "Screma/Screma"), 1);
        assert!(checkable("/Loop/Screma") && !checkable("Index") && !checkable("/Screma/Index"));
    }
}
