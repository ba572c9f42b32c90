//! The greedy baseline: vertical fusion of a producer into its only consumer,
//! as delayed arrays and stream fusion do. A producer whose result is read
//! twice, or read whole, stays in memory; nothing fuses horizontally.

use super::cluster::Decision;
use super::graph::{FusionGraph, Order};
use petgraph::visit::EdgeRef;
use petgraph::Direction;

pub fn decide(graph: &FusionGraph) -> Decision {
    let n = graph.graph.node_count();
    let mut fused = Vec::new();
    let in_group = |a: usize, b: usize| {
        graph
            .sparse_groups
            .iter()
            .any(|g| g.edges.contains(&(a, b)))
    };
    for u in graph.graph.node_indices() {
        let Some(producer) = &graph.graph[u].soac else {
            continue;
        };
        let outs: Vec<_> = graph.graph.edges_directed(u, Direction::Outgoing).collect();
        let [edge] = outs.as_slice() else { continue };
        if in_group(u.index(), edge.target().index()) {
            continue;
        }
        let consumer = &graph.graph[edge.target()];
        let Some(consumer_soac) = &consumer.soac else {
            continue;
        };
        let outputs_private = edge
            .weight()
            .vars
            .iter()
            .all(|v| !graph.always_manifest.contains(v));
        let orders_agree = producer.out_order == Order::Any
            || consumer_soac.in_order == Order::Any
            || producer.out_order == consumer_soac.in_order;
        if edge.weight().fusible && outputs_private && orders_agree {
            fused.push((u.index(), edge.target().index()));
        }
    }
    // A filter family fuses as a whole when it is a chain: each member has
    // one consumer, apart from `size` statements, which read no element.
    for g in &graph.sparse_groups {
        let sizes: Vec<usize> = g.width_uses.iter().map(|&(s, _)| s).collect();
        let all_fusible = g.edges.iter().all(|&(p, c)| {
            graph
                .graph
                .find_edge(graph.node(p), graph.node(c))
                .is_some_and(|e| graph.graph[e].fusible)
        });
        let chain = all_fusible
            && g.edges.iter().all(|&(p, _)| {
                graph
                    .graph
                    .edges_directed(graph.node(p), Direction::Outgoing)
                    .filter(|e| !sizes.contains(&e.target().index()))
                    .count()
                    == 1
            });
        // A size statement may feed a member other than as its width
        // (through a loop, say): fused, the family would then have to run
        // both before and after that statement.
        let members: Vec<usize> = g.edges.iter().flat_map(|&(p, c)| [p, c]).collect();
        let cyclic = sizes.iter().any(|&s| {
            graph
                .graph
                .edges_directed(graph.node(s), Direction::Outgoing)
                .filter(|e| !g.width_uses.contains(&(s, e.target().index())))
                .any(|e| {
                    members
                        .iter()
                        .any(|&m| graph.reaches(e.target().index(), m))
                })
        });
        if chain && !cyclic {
            fused.extend(g.edges.iter().copied());
        }
    }
    // A fused chain runs where its last member stood, after everything it reads.
    let mut last = (0..n).collect::<Vec<_>>();
    for &(producer, consumer) in fused.iter().rev() {
        last[producer] = last[consumer].max(last[producer]);
    }
    // Propagate along chains in either listing order.
    let mut changed = true;
    while changed {
        changed = false;
        for &(producer, consumer) in &fused {
            if last[producer] < last[consumer] {
                last[producer] = last[consumer];
                changed = true;
            }
        }
    }
    // A statement reading a fused family's count runs after the family's
    // cluster, which may now stand later than the statement did.
    let mut changed = true;
    while changed {
        changed = false;
        for e in graph.graph.edge_references() {
            let (u, v) = (e.source().index(), e.target().index());
            if last[v] < last[u] {
                last[v] = last[u];
                changed = true;
            }
        }
        for &(producer, consumer) in &fused {
            let top = last[producer].max(last[consumer]);
            if last[producer] != top || last[consumer] != top {
                last[producer] = top;
                last[consumer] = top;
                changed = true;
            }
        }
    }
    let key = (0..n).map(|i| (last[i] as i64, i)).collect();
    Decision { fused, key }
}
