//! The per-statement tables the frontier search's transitions read
//! (`Plan`), computed once from the fusion graph before the search.

use super::super::bound::{bound, Bound};
use super::super::graph::FusionGraph;
use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;

/// What the transitions need, per statement, computed once.
pub(super) struct Plan {
    pub(super) soac: Vec<bool>,
    /// Interned loop class and direction (0: none).
    pub(super) traits: Vec<(u8, u8)>,
    /// Edges into each statement: source and whether it is fusible.
    pub(super) incoming: Vec<Vec<(usize, bool)>>,
    /// Earlier sibling partners.
    pub(super) siblings: Vec<Vec<usize>>,
    /// Arrays each statement streams (indices into `arrays`).
    pub(super) reads: Vec<Vec<usize>>,
    /// Bytes written whatever the clustering, charged at the producer.
    pub(super) always: Vec<f64>,
    /// Family edges into each statement: family and source.
    pub(super) family_edges: Vec<Vec<(usize, usize)>>,
    /// Width uses into each statement: family and size statement.
    pub(super) width_uses: Vec<Vec<(usize, usize)>>,
    pub(super) arrays: Vec<Array>,
    /// Statements on the frontier after each statement is decided.
    pub(super) active: Vec<Vec<usize>>,
    /// Families open after each statement (decided only once open).
    pub(super) families: Vec<Vec<usize>>,
    /// Families without edges are never fused.
    pub(super) empty_family: Vec<bool>,
    /// Lower bounds on the bytes still to come after each statement.
    pub(super) bound: Bound,
}

pub(super) struct Array {
    pub(super) bytes: f64,
    pub(super) producer: Option<usize>,
    pub(super) readers: Vec<usize>,
    pub(super) always: bool,
}

pub(super) fn plan(graph: &FusionGraph) -> Option<Plan> {
    let g = &graph.graph;
    let n = g.node_count();
    let mut names: Vec<&'static str> = Vec::new();
    let mut intern = |s: Option<&'static str>| -> u8 {
        match s {
            None => 0,
            Some(s) => match names.iter().position(|&t| t == s) {
                Some(i) => i as u8 + 1,
                None => {
                    names.push(s);
                    names.len() as u8
                }
            },
        }
    };
    let mut soac = vec![false; n];
    let mut traits = vec![(0, 0); n];
    for v in 0..n {
        if let Some(s) = &g[NodeIndex::new(v)].soac {
            soac[v] = true;
            traits[v] = (intern(s.loop_class()), intern(s.direction()));
        }
    }
    // The last statement each one is related to.
    let mut last: Vec<usize> = (0..n).collect();
    let relate = |a: usize, b: usize, last: &mut Vec<usize>| {
        let (a, b) = (a.min(b), a.max(b));
        last[a] = last[a].max(b);
    };
    let mut incoming = vec![Vec::new(); n];
    for e in g.edge_references() {
        let (u, v) = (e.source().index(), e.target().index());
        if u >= v {
            return None;
        }
        incoming[v].push((u, e.weight().fusible));
        relate(u, v, &mut last);
    }
    let mut siblings = vec![Vec::new(); n];
    for s in &graph.siblings {
        let (a, b) = (s.a.index().min(s.b.index()), s.a.index().max(s.b.index()));
        if a != b {
            siblings[b].push(a);
            relate(a, b, &mut last);
        }
    }
    let mut reads = vec![Vec::new(); n];
    let mut always = vec![0.0; n];
    let mut arrays = Vec::new();
    for (var, info) in &graph.arrays {
        let mut readers = info.readers.clone();
        readers.sort_unstable();
        readers.dedup();
        let is_always = graph.always_manifest.contains(var);
        if let Some(p) = info.producer {
            if readers.iter().any(|&r| r <= p) {
                return None;
            }
            if is_always {
                always[p] += info.bytes;
            }
        }
        let everyone: Vec<usize> = info.producer.iter().chain(&readers).copied().collect();
        for (i, &a) in everyone.iter().enumerate() {
            for &b in &everyone[i + 1..] {
                relate(a, b, &mut last);
            }
        }
        for &r in &readers {
            reads[r].push(arrays.len());
        }
        arrays.push(Array {
            bytes: info.bytes,
            producer: info.producer,
            readers,
            always: is_always,
        });
    }
    let mut family_edges = vec![Vec::new(); n];
    let mut width_uses = vec![Vec::new(); n];
    let mut span = Vec::new();
    let mut empty_family = Vec::new();
    for (f, family) in graph.sparse_groups.iter().enumerate() {
        let (mut lo, mut hi) = (usize::MAX, 0);
        for &(p, c) in &family.edges {
            if p >= c {
                return None;
            }
            family_edges[c].push((f, p));
            (lo, hi) = (lo.min(c), hi.max(c));
        }
        for &(s, c) in &family.width_uses {
            if s >= c {
                return None;
            }
            width_uses[c].push((f, s));
            relate(s, c, &mut last);
            (lo, hi) = (lo.min(c), hi.max(c));
        }
        span.push((lo, hi));
        empty_family.push(family.edges.is_empty());
    }
    let mut active = Vec::with_capacity(n);
    let mut families = Vec::with_capacity(n);
    let mut frontier: Vec<usize> = Vec::new();
    for t in 0..n {
        frontier.push(t);
        frontier.retain(|&s| last[s] > t);
        active.push(frontier.clone());
        families.push(
            span.iter()
                .enumerate()
                .filter(|(_, &(lo, hi))| lo <= t && t < hi)
                .map(|(f, _)| f)
                .collect(),
        );
    }
    let terms: Vec<(f64, Option<usize>, &[usize], bool)> = arrays
        .iter()
        .map(|a| (a.bytes, a.producer, &a.readers[..], a.always))
        .collect();
    let bound = bound(graph, &active, &terms, &always);
    Some(Plan {
        bound,
        soac,
        traits,
        incoming,
        siblings,
        reads,
        always,
        family_edges,
        width_uses,
        arrays,
        active,
        families,
        empty_family,
    })
}
