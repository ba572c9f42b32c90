//! The order the frontier search decides statements in: a fusion graph in,
//! a topological order whose frontiers are narrow out (`narrow_order`),
//! and the graph renumbered in that order (`renumbered`).
//!
//! The search is exact in any order that every edge, family edge and
//! width use follows (docs/fusion.md, "Exact by dynamic programming": the
//! proof asks only that a statement's producers, earlier readers and
//! related statements are decided before it), but its work grows with
//! how many decided statements are related to undecided ones. Program
//! order is one topological order; another can keep fewer statements
//! waiting, like a min-width (vertex separation) ordering of the
//! relation graph within the dependences.

use super::super::graph::{ArrayUse, FusionGraph, Node, Sibling, SparseGroup};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;

/// The statements each one is related to (`plan`'s relation: an edge, a
/// sibling pair, an array both touch, a width use), and the statements
/// that must come before each (edges, family edges, width uses, producers).
fn relations(graph: &FusionGraph) -> (Vec<Vec<usize>>, Vec<Vec<usize>>) {
    let n = graph.graph.node_count();
    let mut related = vec![Vec::new(); n];
    let mut before = vec![Vec::new(); n];
    let mut relate = |a: usize, b: usize| {
        if a != b {
            related[a].push(b);
            related[b].push(a);
        }
    };
    for e in graph.graph.edge_references() {
        let (u, v) = (e.source().index(), e.target().index());
        relate(u, v);
        before[v].push(u);
    }
    for s in &graph.siblings {
        relate(s.a.index(), s.b.index());
    }
    for info in graph.arrays.values() {
        let everyone: Vec<usize> = info.producer.iter().chain(&info.readers).copied().collect();
        for (i, &a) in everyone.iter().enumerate() {
            for &b in &everyone[i + 1..] {
                relate(a, b);
            }
        }
        if let Some(p) = info.producer {
            for &r in &info.readers {
                before[r].push(p);
            }
        }
    }
    for family in &graph.sparse_groups {
        for &(p, c) in &family.edges {
            before[c].push(p);
        }
        for &(s, c) in &family.width_uses {
            relate(s, c);
            before[c].push(s);
        }
    }
    for list in related.iter_mut().chain(before.iter_mut()) {
        list.sort_unstable();
        list.dedup();
    }
    (related, before)
}

/// The frontier's size after each statement of `order`: the statements
/// placed so far that are related to one not yet placed.
fn widths(related: &[Vec<usize>], order: &[usize]) -> Vec<usize> {
    let n = related.len();
    let mut pos = vec![0; n];
    for (i, &v) in order.iter().enumerate() {
        pos[v] = i;
    }
    // Each statement stays from its place to its last related one's.
    let mut delta = vec![0isize; n + 1];
    for v in 0..n {
        let last = related[v].iter().map(|&u| pos[u]).max().unwrap_or(0);
        if last > pos[v] {
            delta[pos[v]] += 1;
            delta[last] -= 1;
        }
    }
    let mut width = 0isize;
    delta[..n]
        .iter()
        .map(|d| {
            width += d;
            width as usize
        })
        .collect()
}

/// How hard a search in an order is expected to be: the frontier's
/// partitions, and so its states, can grow exponentially with its width,
/// so the sum over all points of 2 to the width.
fn effort(related: &[Vec<usize>], order: &[usize]) -> u64 {
    widths(related, order)
        .iter()
        .fold(0u64, |sum, &w| sum.saturating_add(1u64 << w.min(62)))
}

/// Which statement a greedy order places next among the ready ones, after
/// the fewest left waiting.
#[derive(Clone, Copy)]
enum Prefer {
    /// The one that closes the most waiting statements.
    Closing,
    /// The one related to the most statements placed so far.
    Attached,
}

/// A topological order of `graph` (position to statement) whose frontiers
/// are narrower than program order's (`effort`), or `None` where program
/// order's are as narrow. Greedy, twice (`Prefer`), the better kept: of
/// the statements whose predecessors are all placed, place the one that
/// leaves the fewest statements waiting, then the preferred one, then the
/// earliest in program order.
pub(super) fn narrow_order(graph: &FusionGraph) -> Option<Vec<usize>> {
    let n = graph.graph.node_count();
    let (related, before) = relations(graph);
    let program: Vec<usize> = (0..n).collect();
    let mut best = (effort(&related, &program), None);
    for prefer in [Prefer::Closing, Prefer::Attached] {
        let order = greedy_order(&related, &before, prefer)?;
        let cost = effort(&related, &order);
        if cost < best.0 {
            best = (cost, Some(order));
        }
    }
    best.1
}

/// The greedy order of `narrow_order`; `None` if the dependences have a
/// cycle.
fn greedy_order(
    related: &[Vec<usize>],
    before: &[Vec<usize>],
    prefer: Prefer,
) -> Option<Vec<usize>> {
    let n = related.len();
    let mut waiting_on: Vec<usize> = related.iter().map(Vec::len).collect();
    let mut blocked: Vec<usize> = before.iter().map(Vec::len).collect();
    let mut after = vec![Vec::new(); n];
    for (v, list) in before.iter().enumerate() {
        for &u in list {
            after[u].push(v);
        }
    }
    let mut placed = vec![false; n];
    let mut ready: Vec<usize> = (0..n).filter(|&v| blocked[v] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while !ready.is_empty() {
        // Placing `v` opens it (if it has a relation still to come) and
        // closes each placed statement whose last open relation is `v`.
        let score = |v: usize| {
            let opens = related[v].iter().any(|&u| !placed[u]) as isize;
            let closes = related[v]
                .iter()
                .filter(|&&u| placed[u] && waiting_on[u] == 1)
                .count() as isize;
            let then = match prefer {
                Prefer::Closing => closes,
                Prefer::Attached => related[v].iter().filter(|&&u| placed[u]).count() as isize,
            };
            (opens - closes, -then, v)
        };
        let (at, &v) = ready.iter().enumerate().min_by_key(|&(_, &v)| score(v))?;
        ready.swap_remove(at);
        placed[v] = true;
        order.push(v);
        for &u in &related[v] {
            waiting_on[u] -= 1;
        }
        for &w in &after[v] {
            blocked[w] -= 1;
            if blocked[w] == 0 {
                ready.push(w);
            }
        }
    }
    (order.len() == n).then_some(order)
}

/// `graph` with statement `order[i]` renumbered `i`: the same nodes,
/// edges, sibling pairs, arrays and families, so every clustering costs
/// the same and is legal alike.
pub(super) fn renumbered(graph: &FusionGraph, order: &[usize]) -> FusionGraph {
    let mut new = vec![0; order.len()];
    for (i, &v) in order.iter().enumerate() {
        new[v] = i;
    }
    let g = &graph.graph;
    let mut renumbered = DiGraph::new();
    for (i, &v) in order.iter().enumerate() {
        renumbered.add_node(Node {
            stm: i,
            soac: g[NodeIndex::new(v)].soac.clone(),
        });
    }
    for e in g.edge_references() {
        renumbered.add_edge(
            NodeIndex::new(new[e.source().index()]),
            NodeIndex::new(new[e.target().index()]),
            e.weight().clone(),
        );
    }
    let at = |v: NodeIndex| NodeIndex::new(new[v.index()]);
    let pair = |&(a, b): &(usize, usize)| (new[a], new[b]);
    FusionGraph {
        graph: renumbered,
        siblings: graph
            .siblings
            .iter()
            .map(|s| Sibling {
                a: at(s.a).min(at(s.b)),
                b: at(s.a).max(at(s.b)),
                shared: s.shared.clone(),
            })
            .collect(),
        always_manifest: graph.always_manifest.clone(),
        sizes: graph.sizes.clone(),
        definer: graph
            .definer
            .iter()
            .map(|(&var, &v)| (var, new[v]))
            .collect(),
        sparse_groups: graph
            .sparse_groups
            .iter()
            .map(|f| SparseGroup {
                filter: new[f.filter],
                edges: f.edges.iter().map(pair).collect(),
                width_uses: f.width_uses.iter().map(pair).collect(),
            })
            .collect(),
        arrays: graph
            .arrays
            .iter()
            .map(|(&var, info)| {
                let mut readers: Vec<usize> = info.readers.iter().map(|&r| new[r]).collect();
                readers.sort_unstable();
                (
                    var,
                    ArrayUse {
                        bytes: info.bytes,
                        producer: info.producer.map(|p| new[p]),
                        readers,
                    },
                )
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fusion::decompose::soac_count;
    use crate::fusion::generate::{fusion_graph, CLASSIC, MIXED};
    use crate::fusion::{exhaustive, objective};

    /// Where an order is narrower, it is one all dependences follow, its
    /// frontiers are narrower by `effort`, and the renumbered graph has
    /// the original's enumerated minimum, at a clustering legal in both
    /// that costs the same in both.
    #[test]
    fn narrow_orders_keep_the_enumerated_minimum() {
        let mut reordered = 0;
        for seed in 1..=200u64 {
            let n = 5 + (seed % 6) as usize;
            let kinds = if seed % 2 == 0 {
                &CLASSIC[..]
            } else {
                &MIXED[..]
            };
            let graph = fusion_graph(n, kinds, false, 3 + (seed % 6) as usize, seed * 15_485_863);
            if soac_count(&graph, 0..graph.graph.node_count()) > 10 {
                continue;
            }
            let Some(order) = narrow_order(&graph) else {
                continue;
            };
            reordered += 1;
            let (related, _) = relations(&graph);
            let program: Vec<usize> = (0..order.len()).collect();
            assert!(effort(&related, &order) < effort(&related, &program));
            let renumbered = renumbered(&graph, &order);
            for e in renumbered.graph.edge_references() {
                assert!(e.source().index() < e.target().index(), "seed {seed}");
            }
            let whole = exhaustive::minimum(&graph);
            let moved = exhaustive::minimum(&renumbered);
            assert_eq!(whole.cost, moved.cost, "seed {seed}");
            let back: Vec<usize> = {
                let mut back = vec![0; order.len()];
                for (i, &rep) in moved.cluster.iter().enumerate() {
                    back[order[i]] = order[rep];
                }
                back
            };
            assert!(objective::legal(&graph, &back), "seed {seed}");
            assert_eq!(objective::cost(&graph, &back), moved.cost, "seed {seed}");
        }
        assert!(reordered >= 20, "{reordered} bodies reordered");
    }
}
