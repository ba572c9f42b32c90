//! Safe chain contraction before the frontier search: a fusion graph in,
//! a smaller graph whose nodes are units of statements that some optimal
//! clustering (in cost, then loops) fuses, out (`contract`).
//!
//! A pair producer `p`, consumer `c` is contracted when one of them can
//! relate to nothing but the other, so that in a legal clustering that
//! keeps them apart it sits in a cluster of its own (a cluster is
//! connected by fusible edges and sibling pairs inside it) and moving it
//! into the other's cluster is legal, costs no more and saves a loop:
//!
//! - **Source**: `p`'s incoming edges all come from statements that are
//!   not SOACs (a `size`, say) and have an edge to `c` too, every array it
//!   reads has no other reader, its only outgoing edge is a fusible one
//!   to `c`, and its fixed traits are fixed alike in `c`. Moved into `c`'s
//!   cluster, it reads its inputs once as before, adds no ordering (what
//!   comes before it comes before `c` already, and it comes before `c`
//!   only), fits the cluster's traits (they agree with `c`'s), and what it
//!   makes is read by `c`'s cluster alone, so it is written only when it
//!   must be anyway.
//! - **Sink**: `c`'s incoming edges are a fusible one from `p` and edges
//!   from statements that are not SOACs and have an edge to `p` too, it
//!   reads only arrays `p` makes and no other statement reads, it has no
//!   outgoing edge, and its fixed traits are fixed alike in `p`. Moved
//!   into `p`'s cluster, it adds no ordering (nothing comes after it, what
//!   comes before it comes before `p`), it reads nothing from memory, and
//!   `p`'s arrays it read lose a reader.
//!
//! A statement that is not a SOAC is a cluster of its own, so the edges
//! from it never lie inside a cluster.
//!
//! Neither belongs to a filter family (fused whole or not at all). Either
//! way the clustering stays legal, costs no more and has one loop fewer,
//! so every clustering that keeps the two apart is beaten by one that
//! fuses them, and the least in cost then loops fuses them: searching the
//! contracted graph loses no optimum. Contraction repeats on the
//! contracted graph (a unit is a statement there), so whole chains of
//! such pairs become one unit. The contracted graph is
//! `decompose::reduced_graph`'s: a unit reads an array once, and arrays
//! inside a unit are gone; its cost differs from the original's by a
//! constant (arrays written whatever the clustering that no edge between
//! units carries), `Contracted::offset`.

use super::super::decompose::reduced_graph;
use super::super::graph::FusionGraph;
use super::super::objective;
use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;
use petgraph::Direction;
use std::collections::HashSet;

/// A contracted graph: its nodes' statements of the original graph (in
/// an order all dependences follow), and what to add to its costs to get
/// the original's.
pub(super) struct Contracted {
    pub(super) graph: FusionGraph,
    pub(super) units: Vec<Vec<usize>>,
    pub(super) offset: f64,
}

impl Contracted {
    /// A clustering of the contracted graph (`cluster[u]`, a
    /// representative unit per unit) as one of the original graph.
    pub(super) fn expand(&self, cluster: &[usize]) -> Vec<usize> {
        let n = self.units.iter().map(Vec::len).sum();
        let mut expanded = vec![0; n];
        for (u, unit) in self.units.iter().enumerate() {
            for &v in unit {
                expanded[v] = self.units[cluster[u]][0];
            }
        }
        expanded
    }
}

/// The pair `(p, c)` of statements of `graph` to fuse, when `p` is a
/// source or `c` a sink (module comment).
fn safe_pair(graph: &FusionGraph, family: &HashSet<usize>, v: usize) -> Option<(usize, usize)> {
    let g = &graph.graph;
    let node = NodeIndex::new(v);
    let soac = |v: usize| g[NodeIndex::new(v)].soac.as_ref();
    // Every trait `inner` fixes is fixed alike in `outer`.
    let traits_within = |inner: usize, outer: usize| {
        let (Some(a), Some(b)) = (soac(inner), soac(outer)) else {
            return false;
        };
        let class = a.loop_class().is_none_or(|x| b.loop_class() == Some(x));
        let direction = a.direction().is_none_or(|x| b.direction() == Some(x));
        !a.sparse && !b.sparse && class && direction
    };
    let has_edge = |a: usize, b: usize| g.find_edge(NodeIndex::new(a), NodeIndex::new(b)).is_some();
    // The one SOAC `v` has an edge with in direction `dir`, when that
    // edge is fusible; an edge from a statement that is not a SOAC is
    // allowed where `covered` says the partner has the same one.
    let only_soac = |dir: Direction, covered: &dyn Fn(usize, usize) -> bool| -> Option<usize> {
        let mut partner = None;
        let mut others = Vec::new();
        for e in g.edges_directed(node, dir) {
            let u = match dir {
                Direction::Outgoing => e.target().index(),
                Direction::Incoming => e.source().index(),
            };
            if soac(u).is_some() {
                if partner.is_some() || !e.weight().fusible {
                    return None;
                }
                partner = Some(u);
            } else {
                others.push(u);
            }
        }
        let partner = partner?;
        others
            .iter()
            .all(|&u| covered(u, partner))
            .then_some(partner)
    };
    if family.contains(&v) || soac(v).is_none() {
        return None;
    }
    let incoming_covered = |u: usize, partner: usize| has_edge(u, partner);
    let never = |_: usize, _: usize| false;
    // Source: its inputs its own, one consumer, and nothing before it
    // but what comes before the consumer too.
    let from_non_soacs = g
        .edges_directed(node, Direction::Incoming)
        .map(|e| e.source().index())
        .collect::<Vec<_>>();
    if from_non_soacs.iter().all(|&u| soac(u).is_none()) {
        if let Some(c) = only_soac(Direction::Outgoing, &never) {
            let alone = graph
                .arrays
                .values()
                .all(|info| !info.readers.contains(&v) || info.readers.iter().all(|&r| r == v));
            let made_for_c = graph
                .arrays
                .values()
                .filter(|info| info.producer == Some(v))
                .all(|info| info.readers.iter().all(|&r| r == c));
            let before_c_too = from_non_soacs.iter().all(|&u| has_edge(u, c));
            if alone && made_for_c && before_c_too && !family.contains(&c) && traits_within(v, c) {
                return Some((v, c));
            }
        }
    }
    // Sink: one producer, whose arrays it alone reads, nothing after it,
    // and nothing before it but what comes before the producer too.
    if g.edges_directed(node, Direction::Outgoing).next().is_none() {
        if let Some(p) = only_soac(Direction::Incoming, &incoming_covered) {
            let reads_only_p = graph.arrays.values().all(|info| {
                !info.readers.contains(&v)
                    || (info.producer == Some(p) && info.readers.iter().all(|&r| r == v))
            });
            if reads_only_p && !family.contains(&p) && traits_within(v, p) {
                return Some((p, v));
            }
        }
    }
    None
}

/// `graph` with every safe pair contracted, repeatedly; `None` where
/// nothing contracts.
pub(super) fn contract(graph: &FusionGraph) -> Option<Contracted> {
    let mut current: Option<Contracted> = None;
    loop {
        let g = current.as_ref().map_or(graph, |c| &c.graph);
        let n = g.graph.node_count();
        let family: HashSet<usize> = g
            .sparse_groups
            .iter()
            .flat_map(|f| {
                let ends = f.edges.iter().chain(&f.width_uses);
                ends.flat_map(|&(a, b)| [a, b]).chain([f.filter])
            })
            .collect();
        // Disjoint pairs this round; a unit joins the later of the two's
        // place, or the earlier's for a sink (whose only relation is its
        // producer), so that every dependence still points forward.
        let mut into: Vec<Option<usize>> = vec![None; n];
        let mut taken = vec![false; n];
        for v in 0..n {
            let Some((p, c)) = safe_pair(g, &family, v) else {
                continue;
            };
            if taken[p] || taken[c] {
                continue;
            }
            taken[p] = true;
            taken[c] = true;
            if p == v {
                into[p] = Some(c);
            } else {
                into[c] = Some(p);
            }
        }
        if !taken.iter().any(|&t| t) {
            break;
        }
        let mut members: Vec<Vec<usize>> = (0..n).map(|v| vec![v]).collect();
        for (v, &w) in into.iter().enumerate() {
            if let Some(w) = w {
                members[w].push(v);
            }
        }
        let units: Vec<Vec<usize>> = (0..n)
            .filter(|&v| into[v].is_none())
            .map(|v| std::mem::take(&mut members[v]))
            .collect();
        let reduced = reduced_graph(g, &units, &[], &HashSet::new());
        // Back to the original statements.
        let original: Vec<Vec<usize>> = match &current {
            None => units,
            Some(c) => units
                .iter()
                .map(|unit| unit.iter().flat_map(|&u| c.units[u].clone()).collect())
                .collect(),
        };
        current = Some(Contracted {
            graph: reduced,
            units: original,
            offset: 0.0,
        });
    }
    let mut contracted = current?;
    // The offset: one clustering, each unit a cluster, costed both ways.
    let identity: Vec<usize> = (0..contracted.units.len()).collect();
    let whole = objective::cost(graph, &contracted.expand(&identity));
    contracted.offset = whole - objective::cost(&contracted.graph, &identity);
    Some(contracted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fusion::decompose::soac_count;
    use crate::fusion::exhaustive;
    use crate::fusion::generate::{fusion_graph, Kind, MIXED};

    /// On small random bodies, the contracted graph's enumerated minimum
    /// is the original's (its offset added), and its least clustering,
    /// expanded, is legal in the original and costs that.
    #[test]
    fn contraction_keeps_the_enumerated_minimum() {
        let kinds: Vec<Kind> = MIXED.iter().copied().chain([Kind::ScanRight]).collect();
        let mut contracted_bodies = 0;
        for seed in 1..=300u64 {
            let n = 4 + (seed % 7) as usize;
            let recent = 1 + (seed % 4) as usize;
            let graph = fusion_graph(n, &kinds, seed % 2 == 0, recent, seed * 104_729);
            if soac_count(&graph, 0..graph.graph.node_count()) > 10 {
                continue;
            }
            let Some(contracted) = contract(&graph) else {
                continue;
            };
            contracted_bodies += 1;
            let whole = exhaustive::minimum(&graph);
            let small = exhaustive::minimum(&contracted.graph);
            assert_eq!(
                small.cost + contracted.offset,
                whole.cost,
                "seed {seed}: contracted minimum"
            );
            let expanded = contracted.expand(&small.cluster);
            assert!(objective::legal(&graph, &expanded), "seed {seed}: legal");
            assert_eq!(
                objective::cost(&graph, &expanded),
                whole.cost,
                "seed {seed}"
            );
        }
        assert!(
            contracted_bodies >= 30,
            "{contracted_bodies} bodies contracted"
        );
    }
}
