//! From a clustering decision to the explicit fusion AST: clusters are the
//! connected components of fused pairs; each becomes a fusion tree, and the
//! body's items are ordered by the strategy's key.

use super::ast::{Cluster, ClusterId, FusedBody, FusedLoopForm, FusionTree, Item, SoacStm};
use super::graph::FusionGraph;
use crate::core::ir::{Body, Exp, LoopForm, VarId};
use petgraph::visit::EdgeRef;
use std::collections::{HashMap, HashSet};

/// What a clusterer decided for one body.
pub struct Decision {
    /// Statement index pairs that share a loop.
    pub fused: Vec<(usize, usize)>,
    /// Execution order: units (clusters or single statements) run in
    /// increasing key; a cluster's key is the smallest of its members'.
    pub key: Vec<(i64, usize)>,
}

/// Disjoint sets of `0..n`; a set's representative is its smallest member.
#[derive(Clone)]
pub(crate) struct UnionFind(Vec<usize>);

impl UnionFind {
    pub(crate) fn new(n: usize) -> Self {
        UnionFind((0..n).collect())
    }

    pub(crate) fn find(&mut self, mut x: usize) -> usize {
        while self.0[x] != x {
            self.0[x] = self.0[self.0[x]];
            x = self.0[x];
        }
        x
    }

    pub(crate) fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.0[ra.max(rb)] = ra.min(rb);
        }
    }
}

/// Splits clusters that hold SOACs of conflicting loop classes (see
/// `SoacNode::loop_class`) by unfusing their histograms and scatters, and
/// dissolves those that mix directions (a scan with a scanr) or carried
/// values with a filter's family. A
/// clusterer that knows the classes (the ILP) never needs it; greedy
/// clusterings and windowed solutions may. Histograms and scatters produce
/// no fusible edge, so the parts stay acyclic and keep their keys.
pub fn separate_conflicts(graph: &FusionGraph, mut decision: Decision) -> Decision {
    let n = graph.graph.node_count();
    let mut sets = UnionFind::new(n);
    for &(a, b) in &decision.fused {
        sets.union(a, b);
    }
    let clustered: HashSet<(usize, usize)> = graph
        .conflicts()
        .into_iter()
        .filter(|&(a, b)| sets.find(a) == sets.find(b))
        .collect();
    if clustered.is_empty() {
        return decision;
    }
    let soac = |v: usize| graph.graph[graph.node(v)].soac.as_ref();
    let random_access =
        |v: usize| soac(v).is_some_and(|s| matches!(s.loop_class(), Some("hist" | "scatter")));
    let mut split: HashSet<usize> = clustered
        .iter()
        .flat_map(|&(a, b)| [a, b])
        .filter(|&v| random_access(v))
        .collect();
    // A cluster walking in both directions (a scan beside a scanr), or
    // holding a carried value and a filter's family (a scan feeding a
    // filter: the compaction's loop has no place for the scan), is
    // dissolved: each member a cluster of its own, which is always acyclic
    // and keeps the members' keys.
    for &(a, b) in &clustered {
        let (Some(sa), Some(sb)) = (soac(a), soac(b)) else {
            continue;
        };
        let directions = matches!((sa.direction(), sb.direction()), (Some(x), Some(y)) if x != y);
        let classes = !random_access(a) && !random_access(b) && sa.loop_class() != sb.loop_class();
        if directions || classes {
            let root = sets.find(a);
            split.extend((0..n).filter(|&v| sets.find(v) == root));
        }
    }
    decision
        .fused
        .retain(|(a, b)| !split.contains(a) && !split.contains(b));
    decision
}

/// Builds the items of a body; `nested` turns the branches of an `if` and
/// the body of a loop into fused bodies of their own, and `next_cluster` numbers clusters.
pub fn build_items(
    body: &Body,
    graph: &FusionGraph,
    decision: &Decision,
    next_cluster: &mut u32,
    nested: &mut dyn FnMut(&Body, &mut u32) -> FusedBody,
) -> FusedBody {
    let n = body.stms.len();
    let mut uf = UnionFind::new(n);
    for &(a, b) in &decision.fused {
        uf.union(a, b);
    }
    let mut components: HashMap<usize, Vec<usize>> = HashMap::new();
    for i in 0..n {
        components.entry(uf.find(i)).or_default().push(i);
    }
    let mut units: Vec<Vec<usize>> = components.into_values().collect();
    for unit in &mut units {
        unit.sort_unstable();
    }
    units.sort_by_key(|unit| unit.iter().map(|&i| decision.key[i]).min());

    let mut items = Vec::with_capacity(units.len());
    for unit in units {
        let stm = &body.stms[unit[0]];
        match &stm.exp {
            Exp::Soac(_) => {
                let member_set: HashSet<usize> = unit.iter().copied().collect();
                let leaves = super::rows::merge_row_maps(body, &unit);
                let tree = tree_of(&leaves, graph, &member_set);
                items.push(Item::Cluster(Cluster {
                    id: ClusterId(*next_cluster),
                    tree,
                }));
                *next_cluster += 1;
            }
            Exp::If {
                cond,
                then_body,
                else_body,
            } => {
                debug_assert_eq!(unit.len(), 1, "an `if` never fuses");
                let then_body = nested(then_body, next_cluster);
                let else_body = nested(else_body, next_cluster);
                items.push(Item::If {
                    pat: stm.pat.clone(),
                    cond: *cond,
                    then_body,
                    else_body,
                    loc: stm.loc,
                });
            }
            Exp::Loop { params, form, body } => {
                let form = match form {
                    LoopForm::For { index, bound } => FusedLoopForm::For {
                        index: index.clone(),
                        bound: *bound,
                    },
                    LoopForm::While { cond } => FusedLoopForm::While {
                        cond: nested(cond, next_cluster),
                    },
                };
                let body = nested(body, next_cluster);
                items.push(Item::Loop {
                    pat: stm.pat.clone(),
                    params: params.clone(),
                    form,
                    body,
                    loc: stm.loc,
                });
            }
            _ => items.push(Item::Stm(stm.clone())),
        }
    }
    FusedBody {
        items,
        result: body.result.clone(),
    }
}

/// The fusion tree of the members (in statement order): the first member is
/// the producer of the tree of the rest when they consume its results
/// (vertical, or diagonal when a result they consume is still needed
/// outside the cluster), and its horizontal neighbour otherwise.
fn tree_of(members: &[SoacStm], graph: &FusionGraph, cluster: &HashSet<usize>) -> FusionTree {
    let first = &members[0];
    if members.len() == 1 {
        return FusionTree::Leaf(first.clone());
    }
    let rest = &members[1..];
    let outputs: Vec<VarId> = first.pat.iter().map(|v| v.id).collect();
    let consumed: Vec<VarId> = outputs
        .iter()
        .copied()
        .filter(|v| rest.iter().any(|m| m.soac.args.contains(v)))
        .collect();
    let producer = Box::new(FusionTree::Leaf(first.clone()));
    let consumer = Box::new(tree_of(rest, graph, cluster));
    if consumed.is_empty() {
        return FusionTree::Horizontal(producer, consumer);
    }
    // Only the consumed arrays decide: a result the cluster does not read
    // is written either way, and one it reads but nothing else does
    // never reaches memory.
    let needed_outside = consumed
        .iter()
        .any(|v| needed_outside_cluster(graph, *v, cluster));
    if needed_outside {
        FusionTree::Diagonal {
            producer,
            consumer,
            fused: consumed,
        }
    } else {
        FusionTree::Vertical {
            producer,
            consumer,
            fused: consumed,
        }
    }
}

/// The array must be written to memory: a result of the body, read whole by
/// someone, or read by a statement outside the cluster.
pub fn needed_outside_cluster(graph: &FusionGraph, v: VarId, cluster: &HashSet<usize>) -> bool {
    if graph.always_manifest.contains(&v) {
        return true;
    }
    let Some(&producer) = graph.definer.get(&v) else {
        return true;
    };
    // Asking a fused filter family's array for its size reads no element:
    // the cluster counts the kept elements instead.
    let size_only = |s: usize| {
        graph
            .sparse_groups
            .iter()
            .any(|g| g.width_uses.iter().any(|&(w, _)| w == s))
    };
    graph.graph.edges(graph.node(producer)).any(|e| {
        let t = e.target().index();
        e.weight().vars.contains(&v) && !cluster.contains(&t) && !size_only(t)
    })
}
