//! Splitting a large body's ILP into smaller ones (Kristensen et al.'s safe
//! preprocessing, in the form that fits the ILP).
//!
//! 1. **Independent groups** (exact): SOACs linked by a fusible edge or a
//!    sibling pair form components; components that reach each other both
//!    ways are merged (fusing inside one could otherwise close a cycle
//!    through the other), together with the statements on paths between
//!    them. Every group is convex, its objective terms are its own and any
//!    combination of the groups' acyclic clusterings is acyclic, so solving
//!    each group alone and combining the answers is optimal. A group with one
//!    SOAC needs no solver.
//! 2. **Windows** (heuristic): a group with more than `WINDOW` SOACs is
//!    solved in overlapping windows of `WINDOW` SOACs in program order (a
//!    rolling horizon): earlier clusters are fixed and contracted to single
//!    nodes, of which those sharing an edge or a sibling pair with the window
//!    may still grow; paths through the other fixed clusters become ordering
//!    constraints; only the first `STEP` SOACs' decisions are kept before
//!    the window moves on. The result is no longer proven optimal, so it is
//!    compared with the greedy start and the better of the two is used.
//!
//! The solves share one budget of branch-and-bound nodes (`Budget`).
//!
//! Bodies with at most `DIRECT` SOACs are solved whole, as before.

use super::cluster::Decision;
use super::cluster::UnionFind as Sets;
use super::graph::{ArrayUse, Edge, FusionGraph, Node, Sibling, SparseGroup};
use super::ilp::{self, IlpDecision, IlpFailure, SolveStats};
use super::objective::cost;
use super::order;
use crate::core::ir::VarId;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use petgraph::Direction;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// Up to this many SOACs a body (or a group) is one ILP. With the cuts of
/// `cuts`, microlp proves the generated bodies of `benches/fusion.rs` of 20
/// SOACs optimal in a few milliseconds and of 30 in about 100 ms, but not
/// every body of 42 within 20,000 nodes (docs/fusion.md).
pub const DIRECT: usize = 20;
/// SOACs per window, and how many of them each window decides. Measured on
/// the generated programs of `benches/fusion.rs` with the cuts: windows of
/// 16 moving by 8 move 6% less data than windows of 12 moving by 6 on 1,000
/// SOACs (11% on 100) in 1.4 times the time; windows of 20 gain 2% more in
/// twice that time again, and of 24 nothing.
pub const WINDOW: usize = 16;
/// A group of up to this many SOACs is first solved whole without cluster
/// numbers (`order`, cycle cuts), with at most `PROVE_WORK` work units;
/// only if that proves nothing is it windowed. The generated mixed bodies
/// of `benches/fusion.rs` of 42 and 48 SOACs, which the frontier gives up
/// on, take about 11,600 and 12,800 units (docs/fusion.md); what is left
/// of the default budget goes to the windows where the proof fails.
pub const PROVE_WHOLE: usize = 64;
pub const PROVE_WORK: u64 = 15_000;
pub const STEP: usize = 8;
/// A group of more than `DIRECT` SOACs is first solved exactly by the
/// dynamic program over program order (`frontier`), which gives up past
/// `FRONTIER_WIDEST` states at one point of the program or
/// `FRONTIER_STATES` and `FRONTIER_STATES_PER_SOAC` for each of the
/// group's SOACs in all (the work at each point is alike, so the total
/// grows with the body): bodies whose statements are related only
/// across short distances (chains, a few readers per array) are proven
/// optimal in milliseconds. The generated bodies of `benches/fusion.rs`,
/// whose SOACs read any of the 8 latest arrays, need 8,000 states at one
/// point and 34,000 in all (classic, 100 SOACs), and 21,000 at one point
/// and 245,000 in all (classic, 1,000 SOACs), with branch and bound,
/// dominance and the search's narrow order (docs/fusion.md).
pub const FRONTIER_WIDEST: usize = 25_000;
pub const FRONTIER_STATES: u64 = 100_000;
pub const FRONTIER_STATES_PER_SOAC: u64 = 300;
/// States kept at each point by the beam whose clustering bounds the
/// exact search (`frontier::beam`).
pub const FRONTIER_BEAM: usize = 128;

/// How many of `nodes` are SOACs.
pub(super) fn soac_count(graph: &FusionGraph, nodes: impl IntoIterator<Item = usize>) -> usize {
    nodes
        .into_iter()
        .filter(|&v| graph.graph[NodeIndex::new(v)].soac.is_some())
        .count()
}

/// The work units (branch-and-bound nodes weighted by their LP's size,
/// `solver::node_cost`) the solves of one compilation may still use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub work: u64,
}

impl Budget {
    /// Work for the next of `jobs` solves: ten equal shares of what is
    /// left (most solves need far less than a share and a few far more).
    fn share(&self, jobs: usize) -> u64 {
        (self.work.saturating_mul(10) / jobs.max(1) as u64).min(self.work)
    }

    fn spend(&mut self, stats: &SolveStats) {
        self.work = self.work.saturating_sub(stats.work);
    }
}

pub fn decide(
    graph: &FusionGraph,
    start: &Decision,
    budget: &mut Budget,
) -> Result<IlpDecision, IlpFailure> {
    decide_with(graph, start, budget, DIRECT)
}

/// `decide` with the size up to which a whole body is one ILP (tests lower
/// it to check that splitting into groups loses nothing).
pub fn decide_with(
    graph: &FusionGraph,
    start: &Decision,
    budget: &mut Budget,
    whole: usize,
) -> Result<IlpDecision, IlpFailure> {
    let n = graph.graph.node_count();
    if soac_count(graph, 0..n) <= whole {
        let found = ilp::decide(graph, start, budget.share(1))?;
        budget.spend(&found.stats);
        return Ok(found);
    }
    let groups = independent_groups(graph);
    // Solves still to come, to share the budget among them.
    let mut jobs: usize = groups
        .iter()
        .map(|g| {
            let k = soac_count(graph, g.iter().copied());
            if k <= 1 {
                0
            } else if k <= DIRECT {
                1
            } else {
                1 + (k.saturating_sub(WINDOW)).div_ceil(STEP)
            }
        })
        .sum();
    let mut sets = Sets::new(n);
    let mut proven = true;
    let mut windowed = false;
    let mut stats = SolveStats::default();
    for group in &groups {
        let k = soac_count(graph, group.iter().copied());
        if k <= 1 {
            continue;
        }
        if k <= DIRECT {
            let (sub, warm) = group_graph(graph, group, start);
            let found = ilp::decide(&sub, &warm, budget.share(jobs))?;
            jobs = jobs.saturating_sub(1);
            budget.spend(&found.stats);
            stats.add(&found.stats);
            proven &= found.proven_optimal;
            for &(a, b) in &found.decision.fused {
                sets.union(group[a], group[b]);
            }
        } else {
            let (sub, warm) = group_graph(graph, group, start);
            let m = sub.graph.node_count();
            // Branch and bound: the better of greedy's clustering and a
            // beam's is the incumbent, proven optimal or beaten.
            let incumbent = super::frontier::beam(&sub, FRONTIER_BEAM);
            stats.states += incumbent.as_ref().map_or(0, |e| e.states);
            let greedy = ilp::clusters(m, &warm.fused);
            let greedy_better = super::objective::legal(&sub, &greedy)
                && incumbent
                    .as_ref()
                    .is_none_or(|beam| cost(&sub, &greedy) < beam.cost);
            let known = if greedy_better {
                Some(&greedy)
            } else {
                incumbent.as_ref().map(|beam| &beam.cluster)
            };
            let states = FRONTIER_STATES + FRONTIER_STATES_PER_SOAC * k as u64;
            let exact = match known {
                Some(known) => super::frontier::prove(&sub, FRONTIER_WIDEST, states, known),
                None => super::frontier::solve(&sub, FRONTIER_WIDEST, states, f64::INFINITY),
            };
            stats.states += exact.as_ref().map_or(0, |e| e.states);
            if let Some(exact) = exact {
                jobs = jobs.saturating_sub(1 + (k.saturating_sub(WINDOW)).div_ceil(STEP));
                for (v, &c) in exact.cluster.iter().enumerate() {
                    sets.union(group[v], group[c]);
                }
                continue;
            }
            if k <= PROVE_WHOLE {
                // Whole, by cycle cuts (`order`), within a part of the budget.
                let (sub, warm) = group_graph(graph, group, start);
                let work = budget.share(jobs).min(PROVE_WORK);
                let (found, used) = order::decide(&sub, &warm, work)?;
                budget.spend(&used);
                stats.add(&used);
                if let Some(found) = found {
                    jobs = jobs.saturating_sub(1 + (k.saturating_sub(WINDOW)).div_ceil(STEP));
                    for &(a, b) in &found.decision.fused {
                        sets.union(group[a], group[b]);
                    }
                    continue;
                }
            }
            proven = false;
            windowed = true;
            let before = sets.clone();
            windows(graph, group, &mut sets, budget, &mut jobs, &mut stats)?;
            // The beam's clustering of the group, where it moves less.
            if let Some(beam) = incumbent {
                let windowed: Vec<usize> = group.iter().map(|&v| sets.find(v)).collect();
                if beam.cost < cost(&sub, &windowed) {
                    sets = before;
                    for (v, &c) in beam.cluster.iter().enumerate() {
                        sets.union(group[v], group[c]);
                    }
                }
            }
        }
    }
    let decided: Vec<usize> = (0..n).map(|v| sets.find(v)).collect();
    let greedy = ilp::clusters(n, &start.fused);
    if !proven && cost(graph, &greedy) < cost(graph, &decided) {
        return Ok(IlpDecision {
            decision: Decision {
                fused: start.fused.clone(),
                key: start.key.clone(),
            },
            proven_optimal: false,
            windowed,
            stats,
        });
    }
    Ok(IlpDecision {
        decision: decision_of(graph, &decided),
        proven_optimal: proven,
        windowed,
        stats,
    })
}

/// A group's statements as a graph of their own, with greedy's pairs in
/// the group as the start (they lie in one group).
fn group_graph(graph: &FusionGraph, group: &[usize], start: &Decision) -> (FusionGraph, Decision) {
    let units: Vec<Vec<usize>> = group.iter().map(|&v| vec![v]).collect();
    let sub = reduced_graph(graph, &units, &[], &HashSet::new());
    let local: HashMap<usize, usize> = group.iter().enumerate().map(|(i, &v)| (v, i)).collect();
    let fused = start
        .fused
        .iter()
        .filter_map(|(a, b)| Some((*local.get(a)?, *local.get(b)?)))
        .collect();
    let warm = Decision {
        fused,
        key: Vec::new(),
    };
    (sub, warm)
}

/// The ILP on a reduced graph, starting from nothing fused.
fn solve(sub: &FusionGraph, nodes: u64) -> Result<IlpDecision, IlpFailure> {
    let nothing = Decision {
        fused: Vec::new(),
        key: Vec::new(),
    };
    ilp::decide(sub, &nothing, nodes)
}

/// The fused pairs (every fusible edge and sibling pair inside a cluster)
/// and each statement's key (its cluster's level) for a clustering.
pub(super) fn decision_of(graph: &FusionGraph, cluster: &[usize]) -> Decision {
    let mut fused = Vec::new();
    for e in graph.graph.edge_references() {
        let (u, v) = (e.source().index(), e.target().index());
        if e.weight().fusible && cluster[u] == cluster[v] {
            fused.push((u, v));
        }
    }
    for s in &graph.siblings {
        let (a, b) = (s.a.index(), s.b.index());
        if cluster[a] == cluster[b] {
            fused.push((a, b));
        }
    }
    let level = ilp::cluster_numbers(graph, &fused);
    let key = (0..cluster.len()).map(|i| (level[i], i)).collect();
    Decision { fused, key }
}

/// The independent groups of statements (sorted, in program order) that
/// hold at least one SOAC; see the module comment.
fn independent_groups(graph: &FusionGraph) -> Vec<Vec<usize>> {
    let g = &graph.graph;
    let n = g.node_count();
    let mut sets = Sets::new(n);
    for e in g.edge_references().filter(|e| e.weight().fusible) {
        sets.union(e.source().index(), e.target().index());
    }
    for s in &graph.siblings {
        sets.union(s.a.index(), s.b.index());
    }
    // A family member's width statement belongs with it (the ILP orders
    // them when the family is not fused).
    for family in &graph.sparse_groups {
        for &(s, c) in &family.width_uses {
            sets.union(s, c);
        }
        sets.union(
            family.filter,
            family.edges.first().map_or(family.filter, |e| e.1),
        );
    }
    let comp: Vec<usize> = (0..n).map(|v| sets.find(v)).collect();
    let mut reach: DiGraph<usize, ()> = DiGraph::new();
    let mut node_of: HashMap<usize, NodeIndex> = HashMap::new();
    for &c in &comp {
        node_of.entry(c).or_insert_with(|| reach.add_node(c));
    }
    let mut seen: HashSet<(usize, usize)> = HashSet::new();
    let mut link = |a: usize, b: usize, reach: &mut DiGraph<usize, ()>| {
        if a != b && seen.insert((a, b)) {
            reach.add_edge(node_of[&a], node_of[&b], ());
        }
    };
    for e in g.edge_references() {
        link(
            comp[e.source().index()],
            comp[e.target().index()],
            &mut reach,
        );
    }
    for family in &graph.sparse_groups {
        for &(s, c) in &family.width_uses {
            link(comp[s], comp[c], &mut reach);
        }
    }
    let mut group_of: HashMap<usize, usize> = HashMap::new();
    for (k, scc) in petgraph::algo::tarjan_scc(&reach).into_iter().enumerate() {
        for c in scc {
            group_of.insert(reach[c], k);
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for v in 0..n {
        groups.entry(group_of[&comp[v]]).or_default().push(v);
    }
    let mut groups: Vec<Vec<usize>> = groups
        .into_values()
        .filter(|members| soac_count(graph, members.iter().copied()) > 0)
        .collect();
    groups.sort_by_key(|members| members[0]);
    groups
}

/// The graph of `units` (sets of statements, each already one cluster,
/// listed in an order that all dependencies follow) as nodes: their edges and
/// sibling pairs, `prevent` as extra ordering edges between units, and
/// `forced` arrays that must be in memory whatever the units decide.
pub(super) fn reduced_graph(
    graph: &FusionGraph,
    units: &[Vec<usize>],
    prevent: &[(usize, usize)],
    forced: &HashSet<VarId>,
) -> FusionGraph {
    let mut unit_of: HashMap<usize, usize> = HashMap::new();
    for (k, unit) in units.iter().enumerate() {
        for &v in unit {
            unit_of.insert(v, k);
        }
    }
    let mut reduced = DiGraph::new();
    for unit in units {
        // A unit runs in the order its members need: any scan (scanr) makes it
        // left to right (right to left).
        let mut soac: Option<super::graph::SoacNode> = None;
        for &v in unit {
            if let Some(s) = &graph.graph[NodeIndex::new(v)].soac {
                let merged = soac.get_or_insert_with(|| s.clone());
                // The unit's loop class is that of any member that has one.
                if merged.loop_class().is_none() {
                    merged.kind = s.kind;
                    merged.sparse = s.sparse;
                }
                if s.in_order != super::graph::Order::Any {
                    merged.in_order = s.in_order;
                }
                if matches!(
                    s.out_order,
                    super::graph::Order::LeftToRight | super::graph::Order::RightToLeft
                ) {
                    merged.out_order = s.out_order;
                }
            }
        }
        reduced.add_node(Node { stm: unit[0], soac });
    }
    let mut edges: BTreeMap<(usize, usize), Edge> = BTreeMap::new();
    let mut vars: BTreeSet<VarId> = BTreeSet::new();
    for (k, unit) in units.iter().enumerate() {
        for &v in unit {
            for e in graph
                .graph
                .edges_directed(NodeIndex::new(v), Direction::Outgoing)
            {
                let Some(&j) = unit_of.get(&e.target().index()) else {
                    continue;
                };
                if j == k {
                    continue;
                }
                let edge = edges.entry((k, j)).or_insert(Edge {
                    fusible: true,
                    vars: Vec::new(),
                });
                edge.fusible &= e.weight().fusible;
                for a in &e.weight().vars {
                    vars.insert(*a);
                    if !edge.vars.contains(a) {
                        edge.vars.push(*a);
                    }
                }
            }
        }
    }
    for ((a, b), edge) in edges {
        reduced.add_edge(NodeIndex::new(a), NodeIndex::new(b), edge);
    }
    for &(a, b) in prevent {
        reduced.add_edge(
            NodeIndex::new(a),
            NodeIndex::new(b),
            Edge {
                fusible: false,
                vars: Vec::new(),
            },
        );
    }
    let mut siblings = Vec::new();
    for s in &graph.siblings {
        let (Some(&a), Some(&b)) = (unit_of.get(&s.a.index()), unit_of.get(&s.b.index())) else {
            continue;
        };
        if a != b {
            vars.extend(s.shared.iter().copied());
            siblings.push(Sibling {
                a: NodeIndex::new(a.min(b)),
                b: NodeIndex::new(a.max(b)),
                shared: s.shared.clone(),
            });
        }
    }
    // A family is still a choice when all its statements are undecided
    // units; otherwise its edges between units must stay unfused (it fuses
    // whole or not at all).
    let mut sparse_groups = Vec::new();
    for family in &graph.sparse_groups {
        let single = |v: &usize| unit_of.get(v).filter(|&&k| units[k].len() == 1).copied();
        let nodes = family
            .edges
            .iter()
            .chain(&family.width_uses)
            .flat_map(|&(a, b)| [a, b])
            .chain([family.filter]);
        if nodes.clone().all(|v| single(&v).is_some()) {
            let map = |&(a, b): &(usize, usize)| (unit_of[&a], unit_of[&b]);
            sparse_groups.push(SparseGroup {
                filter: unit_of[&family.filter],
                edges: family.edges.iter().map(map).collect(),
                width_uses: family.width_uses.iter().map(map).collect(),
            });
        } else {
            for &(p, c) in &family.edges {
                if let (Some(&a), Some(&b)) = (unit_of.get(&p), unit_of.get(&c)) {
                    if a != b {
                        reduced.add_edge(
                            NodeIndex::new(a),
                            NodeIndex::new(b),
                            Edge {
                                fusible: false,
                                vars: Vec::new(),
                            },
                        );
                    }
                }
            }
        }
    }
    let always_manifest = vars
        .iter()
        .filter(|a| graph.always_manifest.contains(a) || forced.contains(a))
        .copied()
        .collect();
    let sizes = vars
        .iter()
        .filter_map(|a| Some((*a, graph.sizes.get(a)?.clone())))
        .collect();
    // Arrays as the units stream them: a unit reads an array once, and a
    // unit holding the producer reads nothing; readers outside the units
    // are not this solve's concern (`forced` says what they need written).
    let mut arrays = BTreeMap::new();
    for (a, info) in &graph.arrays {
        let producer = info.producer.and_then(|p| unit_of.get(&p).copied());
        let mut readers: Vec<usize> = info
            .readers
            .iter()
            .filter_map(|r| unit_of.get(r).copied())
            .filter(|&k| Some(k) != producer)
            .collect();
        readers.sort_unstable();
        readers.dedup();
        if readers.is_empty() && producer.is_none() {
            continue;
        }
        arrays.insert(
            *a,
            ArrayUse {
                bytes: info.bytes,
                producer,
                readers,
            },
        );
    }
    FusionGraph {
        graph: reduced,
        siblings,
        always_manifest,
        sizes,
        definer: HashMap::new(),
        sparse_groups,
        arrays,
    }
}

/// Solves a large group window by window (see the module comment), adding
/// the kept decisions to `sets`.
fn windows(
    graph: &FusionGraph,
    group: &[usize],
    sets: &mut Sets,
    budget: &mut Budget,
    jobs: &mut usize,
    stats: &mut SolveStats,
) -> Result<(), IlpFailure> {
    let g = &graph.graph;
    let is_soac = |v: usize| g[NodeIndex::new(v)].soac.is_some();
    let in_group: HashSet<usize> = group.iter().copied().collect();
    // The last statement of each filter family that starts at a position:
    // a window never splits a family.
    let mut family_end: HashMap<usize, usize> = HashMap::new();
    for family in graph
        .sparse_groups
        .iter()
        .filter(|f| in_group.contains(&f.filter))
    {
        let last = family
            .edges
            .iter()
            .map(|e| e.1)
            .chain(family.width_uses.iter().map(|w| w.0))
            .max()
            .unwrap_or(family.filter);
        family_end.insert(family.filter, last);
    }
    let mut sibling_of: HashMap<usize, Vec<usize>> = HashMap::new();
    for s in &graph.siblings {
        sibling_of.entry(s.a.index()).or_default().push(s.b.index());
        sibling_of.entry(s.b.index()).or_default().push(s.a.index());
    }
    let position: HashMap<usize, usize> = group.iter().enumerate().map(|(i, &v)| (v, i)).collect();
    let mut lo = 0;
    while lo < group.len() {
        // The window: the next `WINDOW` SOACs, whole families included.
        let mut hi = lo;
        let mut soacs = 0;
        let mut end = lo;
        while hi < group.len() && (soacs < WINDOW || hi < end) {
            let v = group[hi];
            soacs += usize::from(is_soac(v));
            if let Some(last) = family_end.get(&v) {
                end = end.max(position[last] + 1);
            }
            hi += 1;
        }
        // The kept part: the first `STEP` SOACs, or all at the end.
        let mut keep = hi;
        if hi < group.len() {
            let mut count = 0;
            keep = lo;
            while keep < hi && count < STEP {
                count += usize::from(is_soac(group[keep]));
                keep += 1;
            }
            // Never split a family between kept and re-decided.
            let mut moved = true;
            while moved {
                moved = false;
                for (f, last) in &family_end {
                    let (pf, pl) = (position[f], position[last]);
                    if pf < keep && keep <= pl {
                        keep = pl + 1;
                        moved = true;
                    }
                }
            }
        }
        let free: Vec<usize> = group[lo..hi].to_vec();
        let nodes = budget.share(*jobs);
        *jobs = jobs.saturating_sub(1);
        let bound = group.get(hi).copied().unwrap_or(usize::MAX);
        let found = window(graph, &in_group, &sibling_of, bound, &free, sets, nodes)?;
        budget.spend(&found.stats);
        stats.add(&found.stats);
        let decided = found.decision.fused;
        for (a, b) in decided {
            let (pa, pb) = (position[&a], position[&b]);
            if pa < keep && pb < keep {
                sets.union(a, b);
            }
        }
        lo = keep;
    }
    Ok(())
}

/// One window: `free` statements (of the group, in order) with the fixed
/// clusters before them; statements from `bound` on are not considered.
/// Returns the fused pairs of the solution, as statements of the units.
#[allow(clippy::too_many_arguments)]
fn window(
    graph: &FusionGraph,
    in_group: &HashSet<usize>,
    sibling_of: &HashMap<usize, Vec<usize>>,
    bound: usize,
    free: &[usize],
    sets: &mut Sets,
    nodes: u64,
) -> Result<IlpDecision, IlpFailure> {
    let g = &graph.graph;
    let first = free[0];
    // Fixed clusters of the group before the window, by representative.
    let mut fixed: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for &v in in_group.iter().filter(|&&v| v < first) {
        fixed.entry(sets.find(v)).or_default().push(v);
    }
    for members in fixed.values_mut() {
        members.sort_unstable();
    }
    let rep = |sets: &mut Sets, v: usize| if v < first { sets.find(v) } else { v };
    // The fixed clusters a free statement could join.
    let mut joinable: BTreeSet<usize> = BTreeSet::new();
    for &v in free {
        let node = NodeIndex::new(v);
        for e in g.edges_directed(node, Direction::Incoming) {
            let u = e.source().index();
            if e.weight().fusible && u < first && in_group.contains(&u) {
                joinable.insert(sets.find(u));
            }
        }
        for &u in sibling_of.get(&v).map(Vec::as_slice).unwrap_or_default() {
            if u < first && in_group.contains(&u) {
                joinable.insert(sets.find(u));
            }
        }
    }
    let mut units: Vec<Vec<usize>> = joinable.iter().map(|r| fixed[r].clone()).collect();
    units.extend(free.iter().map(|&v| vec![v]));
    let mut unit_of: HashMap<usize, usize> = HashMap::new();
    for (k, unit) in units.iter().enumerate() {
        for &v in unit {
            unit_of.insert(v, k);
        }
    }
    // Orderings through statements outside the units: a path from one unit
    // to another through fixed clusters that stay as they are.
    let mut prevent: BTreeSet<(usize, usize)> = BTreeSet::new();
    let mut forced: HashSet<VarId> = HashSet::new();
    let mut direct: BTreeSet<(usize, usize)> = BTreeSet::new();
    for (k, unit) in units.iter().enumerate() {
        let mut seen: HashSet<usize> = HashSet::new();
        let mut stack: Vec<usize> = Vec::new();
        for &v in unit {
            for e in g.edges_directed(NodeIndex::new(v), Direction::Outgoing) {
                let w = e.target().index();
                if w >= bound || !in_group.contains(&w) {
                    continue;
                }
                match unit_of.get(&w) {
                    Some(&j) => {
                        if j != k {
                            direct.insert((k, j));
                        }
                    }
                    None => {
                        // An array read by a cluster that stays apart.
                        if e.weight().fusible {
                            forced.extend(e.weight().vars.iter().copied());
                        }
                        let r = rep(sets, w);
                        if seen.insert(r) {
                            stack.push(r);
                        }
                    }
                }
            }
        }
        while let Some(r) = stack.pop() {
            let members = if r < first {
                fixed[&r].clone()
            } else {
                vec![r]
            };
            for x in members {
                for e in g.edges_directed(NodeIndex::new(x), Direction::Outgoing) {
                    let w = e.target().index();
                    if w >= bound || !in_group.contains(&w) {
                        continue;
                    }
                    match unit_of.get(&w) {
                        Some(&j) => {
                            prevent.insert((k, j));
                        }
                        None => {
                            let r = rep(sets, w);
                            if seen.insert(r) {
                                stack.push(r);
                            }
                        }
                    }
                }
            }
        }
    }
    // Units in an order all edges follow (the contracted graph is acyclic).
    let order = topological(units.len(), direct.iter().chain(&prevent));
    let renumber: Vec<usize> = {
        let mut at = vec![0; units.len()];
        for (i, &k) in order.iter().enumerate() {
            at[k] = i;
        }
        at
    };
    let sorted: Vec<Vec<usize>> = order.iter().map(|&k| units[k].clone()).collect();
    let prevent: Vec<(usize, usize)> = prevent
        .iter()
        .map(|&(a, b)| (renumber[a], renumber[b]))
        .collect();
    let sub = reduced_graph(graph, &sorted, &prevent, &forced);
    let mut found = solve(&sub, nodes)?;
    found.decision.fused = found
        .decision
        .fused
        .into_iter()
        .map(|(a, b)| (sorted[a][0], sorted[b][0]))
        .collect();
    Ok(found)
}

/// Kahn's algorithm, smallest index first among the ready nodes.
fn topological<'a>(n: usize, edges: impl Iterator<Item = &'a (usize, usize)>) -> Vec<usize> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut indegree = vec![0; n];
    for &(a, b) in edges {
        out[a].push(b);
        indegree[b] += 1;
    }
    let mut ready: BTreeSet<usize> = (0..n).filter(|&k| indegree[k] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(k) = ready.pop_first() {
        order.push(k);
        for &j in &out[k] {
            indegree[j] -= 1;
            if indegree[j] == 0 {
                ready.insert(j);
            }
        }
    }
    assert_eq!(order.len(), n, "the contracted fusion graph is acyclic");
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fusion::{graph, greedy, sizes};
    use std::path::Path;

    /// The fusion graphs of the entries of a program, as `fuse` builds them
    /// (on a thread with the main thread's stack: a debug build of the front
    /// end recurses deeply on long bodies).
    fn graphs(path: &Path) -> Vec<FusionGraph> {
        let path = path.to_path_buf();
        std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn(move || {
                let program = crate::driver::pipeline::lowered(&path)
                    .unwrap_or_else(|_| panic!("{} compiles", path.display()));
                let program = crate::driver::pipeline::simplify(program, &Default::default())
                    .unwrap_or_else(|e| panic!("{}", e.render()));
                program
                    .entries
                    .iter()
                    .map(|f| graph::build(&f.params, &sizes::forward_sizes(&f.body)))
                    .collect()
            })
            .unwrap()
            .join()
            .unwrap()
    }

    /// A legal clustering (`objective::legal`) whose keys run every
    /// cluster after the clusters it reads from.
    pub(crate) fn check_legal(graph: &FusionGraph, decision: &Decision) {
        let n = graph.graph.node_count();
        let cluster = ilp::clusters(n, &decision.fused);
        assert!(super::super::objective::legal(graph, &cluster));
        // A cluster runs at the smallest key of its members.
        let mut first: HashMap<usize, (i64, usize)> = HashMap::new();
        for (v, &c) in cluster.iter().enumerate() {
            let k = first.entry(c).or_insert(decision.key[v]);
            *k = (*k).min(decision.key[v]);
        }
        for e in graph.graph.edge_references() {
            let (cu, cv) = (cluster[e.source().index()], cluster[e.target().index()]);
            if cu != cv {
                assert!(first[&cu] < first[&cv], "{cu} -> {cv} out of order");
            }
        }
    }

    fn programs() -> Vec<std::path::PathBuf> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut out = Vec::new();
        for dir in ["tests/fusion", "examples"] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "arr") {
                    out.push(path);
                }
            }
        }
        out.sort();
        out
    }

    /// Splitting into independent groups is exact: the same traffic as one
    /// ILP over the whole body, on every fusion test program and example.
    #[test]
    fn groups_lose_nothing() {
        for path in programs() {
            for graph in graphs(&path) {
                let n = graph.graph.node_count();
                if soac_count(&graph, 0..n) > DIRECT {
                    continue;
                }
                let start = greedy::decide(&graph);
                let whole = ilp::decide(&graph, &start, u64::MAX).unwrap();
                let mut budget = Budget { work: u64::MAX };
                let split = decide_with(&graph, &start, &mut budget, 0).unwrap();
                assert!(whole.proven_optimal && split.proven_optimal);
                check_legal(&graph, &split.decision);
                let (a, b) = (
                    cost(&graph, &ilp::clusters(n, &whole.decision.fused)),
                    cost(&graph, &ilp::clusters(n, &split.decision.fused)),
                );
                assert!(
                    (a - b).abs() < 1e-6,
                    "{}: whole {a}, split {b}",
                    path.display()
                );
            }
        }
    }

    /// A body over `DIRECT` SOACs whose groups have at most `PROVE_WHOLE`
    /// is proven optimal by cycle cuts (`many_soacs`: 72 SOACs); the
    /// benchmark's classic 100 by the frontier's branch and bound; mixed
    /// 100 is clustered legally in windows. All far better than greedy.
    #[test]
    fn large_bodies_beat_greedy() {
        use crate::fusion::generate::{program, CLASSIC, MIXED};
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fusion/many_soacs.arr");
        let classic = program(100, &CLASSIC, true, 8, 0x9e3779b97f4a7c15);
        let mixed = program(100, &MIXED, true, 8, 0x9e3779b97f4a7c15);
        let (c, m) = (&classic.entries[0], &mixed.entries[0]);
        for (graph, windowed) in [
            (graphs(&path).remove(0), false),
            (graph::build(&c.params, &c.body), false),
            (graph::build(&m.params, &m.body), true),
        ] {
            let n = graph.graph.node_count();
            assert!(soac_count(&graph, 0..n) > DIRECT);
            let start = greedy::decide(&graph);
            let mut budget = Budget {
                work: crate::fusion::NODE_LIMIT,
            };
            let found = decide(&graph, &start, &mut budget).unwrap();
            assert_eq!(found.windowed, windowed);
            assert_eq!(found.proven_optimal, !windowed);
            check_legal(&graph, &found.decision);
            let greedy_cost = cost(&graph, &ilp::clusters(n, &start.fused));
            let ilp_cost = cost(&graph, &ilp::clusters(n, &found.decision.fused));
            assert!(
                ilp_cost * 1.5 < greedy_cost,
                "ilp {ilp_cost}, greedy {greedy_cost}"
            );
        }
    }
}
