//! `core::ir::Program` in, `fusion::ast::FusedProgram` out: SOACs grouped into
//! clusters, each an explicit fusion tree (leaf, vertical, horizontal,
//! diagonal) under a cluster root, with unfused structure between clusters.
//!
//! Each body (an entry's, or a branch of an `if`) is clustered on its own:
//! nothing fuses across an `if`. So is each body inside a SOAC's function
//! (at any depth) that holds two SOACs or more: n-body's inner map and its
//! three reductions become one loop inside the outer one
//! (`FusedFunction::nested`). Strategies: `none` (every SOAC alone),
//! `greedy` (vertical producer-into-consumer only) and `ilp` (optimal).

pub mod ast;
pub mod check;
pub mod cluster;
pub mod decompose;
pub mod graph;
pub mod greedy;
pub mod ilp;
pub mod print;
pub mod recompute;
pub mod report;
mod sizes;
pub mod traffic;

use crate::core::ir::{Body, Exp, LoopForm, Program, SoacId, Var};
use ast::{FusedBody, FusedFunction, FusedProgram, Item, Strategy};
use cluster::Decision;
use std::collections::BTreeMap;
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct FusionOptions {
    pub strategy: Strategy,
    /// Per body; past it the ILP clusterer falls back to greedy.
    pub time_limit: Duration,
    pub solver: ilp::Solver,
}

impl FusionOptions {
    pub fn new(strategy: Strategy) -> Self {
        FusionOptions {
            strategy,
            time_limit: Duration::from_secs(2),
            solver: ilp::Solver::Microlp,
        }
    }
}

/// The clustered program, and remarks for the user (a solver fallback).
pub struct Fused {
    pub program: FusedProgram,
    pub notes: Vec<String>,
}

pub fn fuse(program: &Program, options: &FusionOptions) -> Fused {
    let mut notes = Vec::new();
    let mut next_cluster = 0;
    let mut fresh = crate::core::fresh::Fresh::for_program(program);
    let bodies: Vec<FusedBody> = program
        .entries
        .iter()
        .map(|f| {
            let body = sizes::forward_sizes(&f.body);
            fuse_body(
                &f.params,
                &body,
                options,
                &mut next_cluster,
                &mut notes,
                Some(&mut fresh),
            )
        })
        .collect();
    // Nested clusters are numbered after every entry's own.
    let entries = program
        .entries
        .iter()
        .zip(bodies)
        .map(|(f, body)| {
            let mut nested = Nested {
                options,
                next_cluster: &mut next_cluster,
                notes: &mut notes,
                bodies: BTreeMap::new(),
            };
            if options.strategy != Strategy::None {
                nested.fused(&body);
            }
            FusedFunction {
                name: f.name.clone(),
                params: f.params.clone(),
                size_params: f.size_params.clone(),
                body,
                nested: nested.bodies,
                ret: f.ret.clone(),
            }
        })
        .collect();
    Fused {
        program: FusedProgram {
            files: program.files.clone(),
            strategy: options.strategy,
            entries,
        },
        notes,
    }
}

/// The `none` strategy: every SOAC a cluster of its own, in program order.
pub fn unfused(program: &Program) -> FusedProgram {
    fuse(program, &FusionOptions::new(Strategy::None)).program
}

/// Clusters the bodies inside SOACs' functions (see
/// `FusedFunction::nested`), like function bodies but without recomputing
/// cheap maps (which needs ids unique in the whole program), numbering
/// their clusters after the entry's.
struct Nested<'a> {
    options: &'a FusionOptions,
    next_cluster: &'a mut u32,
    notes: &'a mut Vec<String>,
    bodies: BTreeMap<SoacId, FusedBody>,
}

impl Nested<'_> {
    /// The functions of the SOACs of a clustered body, and of those in its
    /// branches and loops.
    fn fused(&mut self, body: &FusedBody) {
        for item in &body.items {
            match item {
                Item::Stm(_) => {}
                Item::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    self.fused(then_body);
                    self.fused(else_body);
                }
                Item::Loop { form, body, .. } => {
                    if let ast::FusedLoopForm::While { cond } = form {
                        self.fused(cond);
                    }
                    self.fused(body);
                }
                Item::Cluster(cluster) => {
                    for leaf in cluster.tree.leaves() {
                        if let Some(lam) = leaf.soac.kind.lambda() {
                            self.core(&lam.body);
                        }
                    }
                }
            }
        }
    }

    /// A body inside a function: clustered when it holds two SOACs or
    /// more (one has nothing to fuse with), else searched for such bodies.
    fn core(&mut self, body: &Body) {
        let mut soacs = body.stms.iter().filter_map(|s| match &s.exp {
            Exp::Soac(soac) => Some(soac.label),
            _ => None,
        });
        if let (Some(first), Some(_)) = (soacs.next(), soacs.next()) {
            let forwarded = sizes::forward_sizes(body);
            let fused = fuse_body(
                &[],
                &forwarded,
                self.options,
                self.next_cluster,
                self.notes,
                None,
            );
            self.fused(&fused);
            self.bodies.insert(first, fused);
            return;
        }
        for stm in &body.stms {
            match &stm.exp {
                Exp::Soac(soac) => {
                    if let Some(lam) = soac.kind.lambda() {
                        self.core(&lam.body);
                    }
                }
                Exp::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    self.core(then_body);
                    self.core(else_body);
                }
                Exp::Loop { form, body, .. } => {
                    if let LoopForm::While { cond } = form {
                        self.core(cond);
                    }
                    self.core(body);
                }
                _ => {}
            }
        }
    }
}

fn fuse_body(
    params: &[Var],
    body: &Body,
    options: &FusionOptions,
    next_cluster: &mut u32,
    notes: &mut Vec<String>,
    mut fresh: Option<&mut crate::core::fresh::Fresh>,
) -> FusedBody {
    let recomputed;
    let body = match (&mut fresh, options.strategy) {
        (Some(fresh), Strategy::Greedy | Strategy::Ilp) => {
            recomputed = recompute::duplicate_cheap_maps(body, fresh);
            &recomputed
        }
        _ => body,
    };
    let graph = graph::build(params, body);
    let decision = match options.strategy {
        Strategy::None => Decision {
            fused: Vec::new(),
            key: (0..body.stms.len()).map(|i| (i as i64, i)).collect(),
        },
        Strategy::Greedy => cluster::separate_conflicts(&graph, greedy::decide(&graph)),
        Strategy::Ilp => {
            let start = cluster::separate_conflicts(&graph, greedy::decide(&graph));
            match decompose::decide(&graph, &start, options.solver, options.time_limit) {
                Ok(found) => {
                    if found.windowed {
                        notes.push(format!(
                            "fusion: a body of {} statements was clustered by ILP in windows of \
                             {} SOACs; the clustering is at least as good as greedy but not \
                             proven optimal",
                            body.stms.len(),
                            decompose::WINDOW
                        ));
                    } else if !found.proven_optimal {
                        notes.push(format!(
                            "fusion: the ILP solver reached its time limit ({:.1} s) before \
                             proving optimality; using the best clustering it found",
                            options.time_limit.as_secs_f64()
                        ));
                    }
                    cluster::separate_conflicts(&graph, found.decision)
                }
                Err(ilp::IlpFailure::Solver(msg)) => {
                    notes.push(format!(
                        "fusion: the ILP solver failed ({msg}); this body was clustered greedily"
                    ));
                    start
                }
            }
        }
    };
    let mut nested = |inner: &Body, next: &mut u32| {
        fuse_body(params, inner, options, next, notes, fresh.as_deref_mut())
    };
    cluster::build_items(body, &graph, &decision, next_cluster, &mut nested)
}
