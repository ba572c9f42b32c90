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
    for u in graph.graph.node_indices() {
        let Some(producer) = &graph.graph[u].soac else {
            continue;
        };
        let outs: Vec<_> = graph.graph.edges_directed(u, Direction::Outgoing).collect();
        let [edge] = outs.as_slice() else { continue };
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
    let key = (0..n).map(|i| (last[i] as i64, i)).collect();
    Decision { fused, key }
}
