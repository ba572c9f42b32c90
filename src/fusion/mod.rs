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
mod bound;
pub mod check;
mod checks;
pub mod cluster;
mod cuts;
pub mod decompose;
pub mod exhaustive;
mod flat_index;
mod flat_rows;
pub mod frontier;
pub mod generate;
pub mod graph;
pub mod greedy;
pub mod ilp;
pub mod objective;
pub mod order;
pub mod permute;
pub mod print;
pub mod recompute;
pub mod report;
mod reshape;
pub mod rows;
mod sizes;
mod solver;
pub mod traffic;

pub use solver::CELLS_PER_UNIT;

use crate::core::ir::{Body, Exp, LoopForm, Program, SoacId, Var};
use ast::{FusedBody, FusedFunction, FusedProgram, Item, Strategy};
use cluster::Decision;
use decompose::Budget;
use std::collections::BTreeMap;

/// Work units one compilation's ILPs may use in all: branch-and-bound
/// nodes, each weighted by its LP's size (`solver::CELLS_PER_UNIT` rows
/// times columns a unit). A work limit, not a time, so a program always
/// fuses the same way, yet one that bounds the solver's time: about a
/// second at most (the frontier's states are bounded apart, `decompose`).
pub const NODE_LIMIT: u64 = 20_000;

#[derive(Clone, Debug)]
pub struct FusionOptions {
    pub strategy: Strategy,
    /// Work units (`NODE_LIMIT`) for the whole program; past them the ILP
    /// clusterer keeps the best clustering found (at least greedy's).
    pub node_limit: u64,
    /// Print the solvers' statistics on standard error (`--fusion-stats`).
    pub report_stats: bool,
}

impl FusionOptions {
    pub fn new(strategy: Strategy) -> Self {
        FusionOptions {
            strategy,
            node_limit: NODE_LIMIT,
            report_stats: false,
        }
    }
}

/// The clustered program, remarks for the user (a clustering not proven
/// optimal), and the sizes of the ILPs solved.
pub struct Fused {
    pub program: FusedProgram,
    pub notes: Vec<String>,
    pub stats: ilp::SolveStats,
}

/// What clustering the bodies of one compilation shares: the solver's
/// budget, its statistics and the remarks.
struct Session<'a> {
    options: &'a FusionOptions,
    budget: Budget,
    stats: ilp::SolveStats,
    notes: Vec<String>,
}

pub fn fuse(program: &Program, options: &FusionOptions) -> Fused {
    let mut session = Session {
        options,
        budget: Budget {
            work: options.node_limit,
        },
        stats: ilp::SolveStats::default(),
        notes: Vec::new(),
    };
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
                &mut session,
                &mut next_cluster,
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
                session: &mut session,
                next_cluster: &mut next_cluster,
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
        notes: session.notes,
        stats: session.stats,
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
struct Nested<'a, 's> {
    session: &'a mut Session<'s>,
    next_cluster: &'a mut u32,
    bodies: BTreeMap<SoacId, FusedBody>,
}

impl Nested<'_, '_> {
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
            let fused = fuse_body(&[], &forwarded, self.session, self.next_cluster, None);
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
    session: &mut Session,
    next_cluster: &mut u32,
    mut fresh: Option<&mut crate::core::fresh::Fresh>,
) -> FusedBody {
    let options = session.options;
    let recomputed;
    let body = match (&mut fresh, options.strategy) {
        (Some(fresh), Strategy::Greedy | Strategy::Ilp) => {
            let past = reshape::maps_past_unflatten(body, fresh);
            let pushed = permute::push_into_maps(&past, fresh);
            let flat = reshape::flatten_nests(&pushed, fresh);
            let flat = flat_rows::flat_row_maps(&flat, fresh);
            let flat = reshape::compose_into_nests(&flat);
            let flat = flat_index::flat_maps(&flat, fresh);
            recomputed = recompute::duplicate_cheap_maps(&flat, fresh);
            &recomputed
        }
        _ => body,
    };
    let checked;
    let body = match options.strategy {
        Strategy::Greedy | Strategy::Ilp => {
            checked = checks::size_checks_first(body);
            &checked
        }
        Strategy::None => body,
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
            match decompose::decide(&graph, &start, &mut session.budget) {
                Ok(found) => {
                    session.stats.add(&found.stats);
                    if found.windowed {
                        session.notes.push(format!(
                            "fusion: a body of {} statements was clustered by ILP in windows of \
                             {} SOACs; the clustering is at least as good as greedy but not \
                             proven optimal",
                            body.stms.len(),
                            decompose::WINDOW
                        ));
                    } else if !found.proven_optimal {
                        session.notes.push(format!(
                            "fusion: the ILP solver used its {} units of work before \
                             proving a body of {} statements optimal; using the best clustering \
                             it found",
                            options.node_limit,
                            body.stms.len()
                        ));
                    }
                    cluster::separate_conflicts(&graph, found.decision)
                }
                Err(ilp::IlpFailure::Solver(msg)) => {
                    session.notes.push(format!(
                        "fusion: the ILP solver failed ({msg}); this body was clustered greedily"
                    ));
                    start
                }
            }
        }
    };
    let mut nested = |inner: &Body, next: &mut u32| {
        fuse_body(params, inner, session, next, fresh.as_deref_mut())
    };
    cluster::build_items(body, &graph, &decision, next_cluster, &mut nested)
}
