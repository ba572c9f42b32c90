//! `core::ir::Program` in, `fusion::ast::FusedProgram` out: SOACs grouped into
//! clusters, each an explicit fusion tree (leaf, vertical, horizontal,
//! diagonal) under a cluster root, with unfused structure between clusters.
//!
//! Each body (an entry's, or a branch of an `if`) is clustered on its own:
//! nothing fuses across an `if`. Strategies: `none` (every SOAC alone),
//! `greedy` (vertical producer-into-consumer only) and `ilp` (optimal).

pub mod ast;
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

use crate::core::ir::{Body, Program, Var};
use ast::{FusedBody, FusedFunction, FusedProgram, Strategy};
use cluster::Decision;
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
    let mut fresh = crate::simplify::walk::Fresh::for_program(program);
    let entries = program
        .entries
        .iter()
        .map(|f| {
            let body = sizes::forward_sizes(&f.body);
            FusedFunction {
                name: f.name.clone(),
                params: f.params.clone(),
                size_params: f.size_params.clone(),
                body: fuse_body(
                    &f.params,
                    &body,
                    options,
                    &mut next_cluster,
                    &mut notes,
                    Some(&mut fresh),
                ),
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

/// Clusters a lambda body (the function of a SOAC, lowered inside another
/// SOAC's loop) like a function body, but without recomputing cheap maps
/// (which needs ids unique in the whole program). Cluster numbers start at
/// 0: the lowering names nested clusters by their first SOAC instead.
pub fn fuse_nested(body: &Body, strategy: Strategy) -> FusedBody {
    let options = FusionOptions::new(strategy);
    let body = sizes::forward_sizes(body);
    let mut next_cluster = 0;
    let mut notes = Vec::new();
    fuse_body(&[], &body, &options, &mut next_cluster, &mut notes, None)
}

fn fuse_body(
    params: &[Var],
    body: &Body,
    options: &FusionOptions,
    next_cluster: &mut u32,
    notes: &mut Vec<String>,
    mut fresh: Option<&mut crate::simplify::walk::Fresh>,
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
