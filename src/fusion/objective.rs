//! What the clusterers optimise, independent of any solver: the memory
//! traffic of a clustering in bytes, and which clusterings are legal. The
//! ILP (`ilp.rs`) encodes exactly this; `exhaustive.rs` enumerates it.
//!
//! A clustering is given as `cluster[v]`, a representative per statement.

use super::graph::FusionGraph;
use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;
use std::collections::{BTreeMap, BTreeSet};

/// Bytes moved: each array is read once by every cluster that streams it
/// from memory (however many of its members stream it; not the producer's
/// cluster, where it is a register), and written once when it is needed in
/// memory (a reader in another cluster, or always).
pub fn cost(graph: &FusionGraph, cluster: &[usize]) -> f64 {
    let mut total = 0.0;
    for (array, info) in &graph.arrays {
        let home = info.producer.map(|p| cluster[p]);
        let reading: BTreeSet<usize> = info
            .readers
            .iter()
            .map(|&r| cluster[r])
            .filter(|&c| Some(c) != home)
            .collect();
        total += info.bytes * reading.len() as f64;
        if info.producer.is_some() && (!reading.is_empty() || graph.always_manifest.contains(array))
        {
            total += info.bytes;
        }
    }
    total
}

/// Whether the pipeline can run a clustering: only SOACs share clusters,
/// each cluster is connected by fusible edges or sibling pairs inside it,
/// holds no preventing edge and one loop class and direction, filter
/// families fuse whole or not at all, and the clusters can run in some order.
pub fn legal(graph: &FusionGraph, cluster: &[usize]) -> bool {
    let g = &graph.graph;
    let n = g.node_count();
    let mut members: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (v, &c) in cluster.iter().enumerate().take(n) {
        members.entry(c).or_default().push(v);
    }
    for list in members.values().filter(|l| l.len() > 1) {
        if list.iter().any(|&v| g[NodeIndex::new(v)].soac.is_none()) {
            return false;
        }
        for dim in 0..2 {
            let mut fixed = list.iter().filter_map(|&v| {
                let s = g[NodeIndex::new(v)].soac.as_ref()?;
                [s.loop_class(), s.direction()][dim]
            });
            if let Some(first) = fixed.next() {
                if fixed.any(|l| l != first) {
                    return false;
                }
            }
        }
    }
    // Connected inside: union the fusible edges and sibling pairs within.
    let mut sets = super::cluster::UnionFind::new(n);
    for e in g.edge_references() {
        let (u, v) = (e.source().index(), e.target().index());
        if cluster[u] == cluster[v] {
            if !e.weight().fusible {
                return false;
            }
            sets.union(u, v);
        }
    }
    for s in &graph.siblings {
        let (a, b) = (s.a.index(), s.b.index());
        if cluster[a] == cluster[b] {
            sets.union(a, b);
        }
    }
    for list in members.values() {
        let root = sets.find(list[0]);
        if list.iter().any(|&v| sets.find(v) != root) {
            return false;
        }
    }
    // Families, and the order of the clusters.
    let mut order: BTreeSet<(usize, usize)> = BTreeSet::new();
    for e in g.edge_references() {
        let (cu, cv) = (cluster[e.source().index()], cluster[e.target().index()]);
        if cu != cv {
            order.insert((cu, cv));
        }
    }
    for family in &graph.sparse_groups {
        let fused = family
            .edges
            .iter()
            .filter(|&&(p, c)| cluster[p] == cluster[c])
            .count();
        if fused != 0 && fused != family.edges.len() {
            return false;
        }
        if fused == 0 {
            for &(s, c) in &family.width_uses {
                order.insert((cluster[s], cluster[c]));
            }
        }
    }
    acyclic(members.keys().copied(), &order)
}

/// Kahn's algorithm on the cluster graph.
fn acyclic(nodes: impl Iterator<Item = usize>, edges: &BTreeSet<(usize, usize)>) -> bool {
    let mut indegree: BTreeMap<usize, usize> = nodes.map(|c| (c, 0)).collect();
    let mut out: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for &(a, b) in edges {
        *indegree.entry(b).or_insert(0) += 1;
        out.entry(a).or_default().push(b);
    }
    let mut ready: Vec<usize> = indegree
        .iter()
        .filter(|(_, &d)| d == 0)
        .map(|(&c, _)| c)
        .collect();
    let mut done = 0;
    while let Some(c) = ready.pop() {
        done += 1;
        for &b in out.get(&c).map(Vec::as_slice).unwrap_or_default() {
            let d = indegree.get_mut(&b).expect("a node of the graph");
            *d -= 1;
            if *d == 0 {
                ready.push(b);
            }
        }
    }
    done == indegree.len()
}
