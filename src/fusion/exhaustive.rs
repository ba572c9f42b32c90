//! Every legal clustering of a small fusion graph, by brute force: the
//! reference the ILP is tested against (`tests/fusion_optimal.rs`). It uses
//! only `objective::{legal, cost}`, none of the ILP's reasoning.
//!
//! The SOACs are split into blocks in every possible way (restricted growth
//! strings); a SOAC joins a block only if no preventing edge joins it to a
//! member and their loop classes and directions agree, which `legal` would
//! reject anyway. Bell(10) = 115,975 partitions at most for 10 SOACs.

use super::graph::FusionGraph;
use super::objective::{cost, legal};
use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;

/// The least cost of a legal clustering and one clustering that has it
/// (`cluster[v]` as in `objective`), with the number of legal clusterings.
pub struct Minimum {
    pub cost: f64,
    pub cluster: Vec<usize>,
    pub legal: usize,
}

pub fn minimum(graph: &FusionGraph) -> Minimum {
    let g = &graph.graph;
    let n = g.node_count();
    let soacs: Vec<usize> = (0..n)
        .filter(|&v| g[NodeIndex::new(v)].soac.is_some())
        .collect();
    let mut preventing = vec![vec![false; n]; n];
    for e in g.edge_references().filter(|e| !e.weight().fusible) {
        let (u, v) = (e.source().index(), e.target().index());
        preventing[u][v] = true;
        preventing[v][u] = true;
    }
    let traits = |v: usize| {
        let s = g[NodeIndex::new(v)].soac.as_ref().expect("a SOAC");
        [s.loop_class(), s.direction()]
    };
    let compatible = |a: usize, b: usize| {
        let (ta, tb) = (traits(a), traits(b));
        !preventing[a][b]
            && ta
                .iter()
                .zip(&tb)
                .all(|(x, y)| x.is_none() || y.is_none() || x == y)
    };
    let mut best = Minimum {
        cost: f64::INFINITY,
        cluster: (0..n).collect(),
        legal: 0,
    };
    // `blocks[k]`: the members of block `k`; block `k`'s representative is
    // its first member.
    let mut blocks: Vec<Vec<usize>> = Vec::new();
    let mut visit = |blocks: &Vec<Vec<usize>>, best: &mut Minimum| {
        let mut cluster: Vec<usize> = (0..n).collect();
        for block in blocks {
            for &v in block {
                cluster[v] = block[0];
            }
        }
        if legal(graph, &cluster) {
            best.legal += 1;
            let c = cost(graph, &cluster);
            if c < best.cost {
                best.cost = c;
                best.cluster = cluster;
            }
        }
    };
    fn place(
        i: usize,
        soacs: &[usize],
        blocks: &mut Vec<Vec<usize>>,
        best: &mut Minimum,
        compatible: &dyn Fn(usize, usize) -> bool,
        visit: &mut dyn FnMut(&Vec<Vec<usize>>, &mut Minimum),
    ) {
        let Some(&v) = soacs.get(i) else {
            visit(blocks, best);
            return;
        };
        for k in 0..blocks.len() {
            if blocks[k].iter().all(|&u| compatible(u, v)) {
                blocks[k].push(v);
                place(i + 1, soacs, blocks, best, compatible, visit);
                blocks[k].pop();
            }
        }
        blocks.push(vec![v]);
        place(i + 1, soacs, blocks, best, compatible, visit);
        blocks.pop();
    }
    place(0, &soacs, &mut blocks, &mut best, &compatible, &mut visit);
    best
}
