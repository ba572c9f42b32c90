//! Optimal clustering by integer linear programming (van Balen's formulation
//! over Megiddo and Sarkar's), solved by microlp's branch and bound.
//!
//! Variables: a cluster number `pi` per statement; a 0/1 `x` per pair of
//! SOACs that could share a loop (a fusible edge or two readers of one
//! array; 0 = same cluster); per array, a read flag per reader (the reader
//! is the first of its cluster to stream the array from memory) and a write
//! flag; per SOAC of no fixed loop class (a map), which class its loop has
//! when the body mixes classes. The objective is memory traffic in bytes
//! (`objective::cost` is the same sum for a given clustering).
//!
//! Rows of `cuts` (pairs that cannot both be fused, triangles) tighten
//! the relaxation without excluding any legal clustering.
//!
//! Cluster numbers range over `0..n` (`n` statements): a clustering may need
//! more levels than the graph's longest path, as horizontal fusion joins
//! paths, but never more than one per statement. The solver stops after a
//! number of branch-and-bound nodes, not after a time, so the same program
//! always fuses the same way; it starts from the greedy clustering, so its
//! answer is never worse than greedy.

use super::cluster::{Decision, UnionFind};
use super::cuts;
use super::graph::FusionGraph;
use super::solver::{self, Cmp, Column, Lp, Row};
use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;
use petgraph::Direction;
use std::collections::BTreeMap;

/// The value every size unknown at compile time takes in the objective: all
/// such sizes count alike, and an inner dimension multiplies (a matrix of
/// unknown shape weighs `SYMBOLIC_SIZE` times a vector).
pub const SYMBOLIC_SIZE: f64 = 1000.0;

#[derive(Debug)]
pub enum IlpFailure {
    Solver(String),
}

/// The sizes of the ILPs solved for one body (or a whole compilation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SolveStats {
    pub solves: usize,
    pub variables: usize,
    pub integers: usize,
    pub constraints: usize,
    /// Branch-and-bound nodes used.
    pub nodes: u64,
    /// Work units used: nodes weighted by their LP's size
    /// (`solver::node_cost`); what the budget counts.
    pub work: u64,
    /// Rows times columns of the LP of each node, summed.
    pub cells: u64,
    /// Frontier states of the exact dynamic program (`frontier`).
    pub states: u64,
}

impl SolveStats {
    pub fn add(&mut self, other: &SolveStats) {
        self.solves += other.solves;
        self.variables += other.variables;
        self.integers += other.integers;
        self.constraints += other.constraints;
        self.nodes += other.nodes;
        self.work += other.work;
        self.cells += other.cells;
        self.states += other.states;
    }

    /// One line for `--fusion-stats`, with the work `limit` it ran under.
    pub fn summary(&self, limit: u64) -> String {
        format!(
            "fusion stats: solves {}, nodes {}, work {} of {limit}, lp cells {}, frontier states {}",
            self.solves, self.nodes, self.work, self.cells, self.states
        )
    }
}

/// The solver's clustering, and whether it is proven optimal (false when
/// the node budget ran out first: then it is the best found, at least greedy).
pub struct IlpDecision {
    pub decision: Decision,
    pub proven_optimal: bool,
    /// Solved window by window (`decompose`): never proven optimal.
    pub windowed: bool,
    pub stats: SolveStats,
}

/// Bit sets over the statements.
#[derive(Clone)]
pub(super) struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Self {
        Bits(vec![0; n.div_ceil(64)])
    }
    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    fn get(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }
    fn union(&mut self, other: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }
}

/// What every clustering of the graph must respect: statement order, which
/// statements can never share a cluster, and bounds on cluster numbers.
pub(super) struct Structure {
    /// Statements in an order every edge follows.
    pub order: Vec<usize>,
    /// `reach[u]`: statements reached from `u` by a path.
    pub reach: Vec<Bits>,
    /// `apart[u]`: statements reached from `u` by a path with a preventing
    /// edge (never in `u`'s cluster).
    apart: Vec<Bits>,
    /// Fewest clusters before / after each statement (preventing chains).
    pub earliest: Vec<i64>,
    pub tail: Vec<i64>,
}

pub(super) fn structure(graph: &FusionGraph) -> Structure {
    let g = &graph.graph;
    let n = g.node_count();
    let order: Vec<usize> = petgraph::algo::toposort(g, None)
        .map(|o| o.into_iter().map(|v| v.index()).collect())
        .unwrap_or_else(|_| (0..n).collect());
    let mut reach = vec![Bits::new(n); n];
    let mut apart = vec![Bits::new(n); n];
    let mut tail = vec![0i64; n];
    for &u in order.iter().rev() {
        for e in g.edges_directed(NodeIndex::new(u), Direction::Outgoing) {
            let w = e.target().index();
            let (rw, aw) = (reach[w].clone(), apart[w].clone());
            reach[u].set(w);
            reach[u].union(&rw);
            if e.weight().fusible {
                apart[u].union(&aw);
            } else {
                apart[u].set(w);
                apart[u].union(&rw);
            }
            tail[u] = tail[u].max(tail[w] + i64::from(!e.weight().fusible));
        }
    }
    let mut earliest = vec![0i64; n];
    for &v in &order {
        for e in g.edges_directed(NodeIndex::new(v), Direction::Incoming) {
            let u = e.source().index();
            earliest[v] = earliest[v].max(earliest[u] + i64::from(!e.weight().fusible));
        }
    }
    Structure {
        order,
        reach,
        apart,
        earliest,
        tail,
    }
}

impl Structure {
    /// No clustering can put `a` and `b` in one cluster: a path between
    /// them has a preventing edge.
    pub fn apart(&self, a: usize, b: usize) -> bool {
        self.apart[a].get(b) || self.apart[b].get(a)
    }

    /// A path leads from `a` to `b`.
    pub fn reaches(&self, a: usize, b: usize) -> bool {
        self.reach[a].get(b)
    }

    /// A path with a preventing edge leads from `a` to `b`.
    pub fn reaches_apart(&self, a: usize, b: usize) -> bool {
        self.apart[a].get(b)
    }
}

/// Trait of a statement that all members of a cluster share: its loop
/// class and its direction. `None`: takes its cluster's.
fn labels(graph: &FusionGraph, v: usize) -> [Option<&'static str>; 2] {
    match &graph.graph[graph.node(v)].soac {
        Some(s) => [s.loop_class(), s.direction()],
        None => [None, None],
    }
}

/// Two SOACs that could share a loop: neither's fixed traits nor a
/// preventing path keep them apart.
pub(super) fn could_fuse(graph: &FusionGraph, s: &Structure, a: usize, b: usize) -> bool {
    let (la, lb) = (labels(graph, a), labels(graph, b));
    let traits_agree = la
        .iter()
        .zip(&lb)
        .all(|(x, y)| x.is_none() || y.is_none() || x == y);
    graph.graph[graph.node(a)].soac.is_some()
        && graph.graph[graph.node(b)].soac.is_some()
        && traits_agree
        && !s.apart(a, b)
}

/// The candidate pairs (earlier statement first) and whether a fusible edge
/// joins them: fusible edges and sibling pairs that `could_fuse`.
pub(super) fn candidate_pairs(
    graph: &FusionGraph,
    s: &Structure,
) -> BTreeMap<(usize, usize), bool> {
    let position: Vec<usize> = {
        let mut at = vec![0; s.order.len()];
        for (i, &v) in s.order.iter().enumerate() {
            at[v] = i;
        }
        at
    };
    let key = |a: usize, b: usize| {
        if position[a] <= position[b] {
            (a, b)
        } else {
            (b, a)
        }
    };
    let mut pairs = BTreeMap::new();
    for e in graph.graph.edge_references().filter(|e| e.weight().fusible) {
        let (u, v) = (e.source().index(), e.target().index());
        if could_fuse(graph, s, u, v) {
            pairs.insert(key(u, v), true);
        }
    }
    for sib in &graph.siblings {
        let (a, b) = (sib.a.index(), sib.b.index());
        if could_fuse(graph, s, a, b) {
            pairs.entry(key(a, b)).or_insert(false);
        }
    }
    pairs
}

/// A column of the model.
type Variable = usize;

/// Builds the constraints of the model as lists of terms, so that constant
/// terms (of fixed traits) fold into the right-hand side.
struct Model {
    lp: Lp,
    integers: usize,
}

/// A term of a constraint: a variable, or a constant 0/1.
#[derive(Clone, Copy)]
enum Term {
    Var(Variable),
    Const(f64),
}

impl Model {
    fn column(&mut self, cost: f64, lo: f64, hi: f64, integer: bool) -> Variable {
        self.integers += usize::from(integer);
        self.lp.columns.push(Column {
            cost,
            lo,
            hi,
            integer,
        });
        self.lp.start.push(0.0);
        self.lp.columns.len() - 1
    }
    fn var(&mut self, cost: f64, range: (f64, f64)) -> Variable {
        self.column(cost, range.0, range.1, false)
    }
    fn integer(&mut self, cost: f64, range: (i64, i64)) -> Variable {
        let clamp = |v: i64| v.clamp(i32::MIN as i64, i32::MAX as i64) as f64;
        self.column(cost, clamp(range.0), clamp(range.1), true)
    }
    fn binary(&mut self, cost: f64) -> Variable {
        self.column(cost, 0.0, 1.0, true)
    }
    /// `sum(coeff * term) op rhs`; nothing when every term is constant.
    fn constrain(&mut self, terms: &[(f64, Term)], op: Cmp, mut rhs: f64) {
        let mut expr: BTreeMap<Variable, f64> = BTreeMap::new();
        for &(k, t) in terms {
            match t {
                Term::Var(v) => *expr.entry(v).or_insert(0.0) += k,
                Term::Const(c) => rhs -= k * c,
            }
        }
        expr.retain(|_, k| *k != 0.0);
        if expr.is_empty() {
            return;
        }
        self.lp.rows.push(Row {
            terms: expr.into_iter().collect(),
            cmp: op,
            rhs,
        });
    }
}

/// A clustering as cluster representatives (`cluster[v]`).
pub fn clusters(n: usize, fused: &[(usize, usize)]) -> Vec<usize> {
    let mut sets = UnionFind::new(n);
    for &(a, b) in fused {
        sets.union(a, b);
    }
    (0..n).map(|v| sets.find(v)).collect()
}

/// Cluster numbers for a given clustering: each cluster as early as its
/// predecessors allow.
pub(super) fn cluster_numbers(graph: &FusionGraph, fused: &[(usize, usize)]) -> Vec<i64> {
    let n = graph.graph.node_count();
    let cluster = clusters(n, fused);
    let mut level = vec![0i64; n];
    // Relax to a fixed point; the cluster graph is acyclic, so at most n rounds.
    for _ in 0..=n {
        let mut changed = false;
        for e in graph.graph.edge_references() {
            let (cu, cv) = (cluster[e.source().index()], cluster[e.target().index()]);
            if cu != cv && level[cv] < level[cu] + 1 {
                level[cv] = level[cu] + 1;
                changed = true;
            }
        }
        // An unfused family's member runs after the `size` giving its width.
        for family in graph
            .sparse_groups
            .iter()
            .filter(|f| f.edges.iter().any(|&(p, c)| cluster[p] != cluster[c]))
        {
            for &(s, c) in &family.width_uses {
                let (cs, cc) = (cluster[s], cluster[c]);
                if cs != cc && level[cc] < level[cs] + 1 {
                    level[cc] = level[cs] + 1;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    (0..n).map(|v| level[cluster[v]]).collect()
}

/// Cluster numbers in which every cluster has a number of its own, in an
/// order all edges follow.
fn distinct_cluster_numbers(
    graph: &FusionGraph,
    cluster: &[usize],
    fused: &[(usize, usize)],
) -> Vec<i64> {
    let level = cluster_numbers(graph, fused);
    let n = level.len();
    let mut roots: Vec<(i64, usize)> = (0..n)
        .filter(|&v| cluster[v] == v)
        .map(|v| (level[v], v))
        .collect();
    roots.sort_unstable();
    let mut number = vec![0i64; n];
    for (k, &(_, root)) in roots.iter().enumerate() {
        number[root] = k as i64;
    }
    (0..n).map(|v| number[cluster[v]]).collect()
}

/// The model of a body, ready for the solver: the columns of the pair
/// variables, of the cluster numbers (empty when built without them, for
/// `order`), and the greedy start as values.
pub(super) struct Built {
    pub lp: Lp,
    pub integers: usize,
    pub pi: Vec<usize>,
    pub x: BTreeMap<(usize, usize), usize>,
    /// Per filter family whose pairs are all candidates, the variable that
    /// says it is not fused (then its width uses order its members).
    pub family_apart: Vec<Option<usize>>,
}

/// The optimal clustering within `work` units (`solver::node_cost` per
/// branch-and-bound node), or the best found, at least `start`.
pub fn decide(graph: &FusionGraph, start: &Decision, work: u64) -> Result<IlpDecision, IlpFailure> {
    let n = graph.graph.node_count();
    if n == 0 {
        return Ok(IlpDecision {
            decision: Decision {
                fused: Vec::new(),
                key: Vec::new(),
            },
            proven_optimal: true,
            windowed: false,
            stats: SolveStats::default(),
        });
    }
    let s = structure(graph);
    let built = build(graph, &s, start, true);
    let outcome = solver::solve(&built.lp, work).map_err(IlpFailure::Solver)?;
    let stats = SolveStats {
        solves: 1,
        variables: built.lp.columns.len(),
        integers: built.integers,
        constraints: built.lp.rows.len(),
        nodes: outcome.nodes,
        work: outcome.work,
        cells: outcome.cells,
        states: 0,
    };
    let Some(values) = outcome.values else {
        // No assignment at all (the start was not accepted): keep greedy.
        let start_cluster = clusters(n, &start.fused);
        let start_pi = distinct_cluster_numbers(graph, &start_cluster, &start.fused);
        return Ok(IlpDecision {
            decision: Decision {
                fused: start.fused.clone(),
                key: start_pi.iter().enumerate().map(|(v, &p)| (p, v)).collect(),
            },
            proven_optimal: false,
            windowed: false,
            stats,
        });
    };
    let fused = built
        .x
        .iter()
        .filter(|(_, &xv)| values[xv] < 0.5)
        .map(|(&pair, _)| pair)
        .collect();
    let key = (0..n)
        .map(|v| (values[built.pi[v]].round() as i64, v))
        .collect();
    Ok(IlpDecision {
        decision: Decision { fused, key },
        proven_optimal: outcome.proven_optimal,
        windowed: false,
        stats,
    })
}

/// Builds the model of a non-empty body. With `order`, cluster numbers
/// exclude every illegal clustering; without, only the cuts do, and
/// `order::decide` adds the rows that exclude cycles as it finds them.
pub(super) fn build(graph: &FusionGraph, s: &Structure, start: &Decision, order: bool) -> Built {
    let g = &graph.graph;
    let n = g.node_count();
    let pairs = candidate_pairs(graph, s);
    let top = (n - 1).max(1) as i64;
    let lo = |v: usize| s.earliest[v];
    let hi = |v: usize| (top - s.tail[v]).max(s.earliest[v]);

    // The greedy start, as values of the variables below.
    let start_cluster = clusters(n, &start.fused);
    let start_pi = distinct_cluster_numbers(graph, &start_cluster, &start.fused);
    let mut warm: Vec<(Variable, f64)> = Vec::new();

    let mut m = Model {
        lp: Lp::default(),
        integers: 0,
    };
    // Among clusterings of equal traffic prefer fewer loops, then early
    // cluster numbers (for stable output); both weigh less than a byte.
    let tie_x = 1e-3 / (pairs.len() as f64 + 1.0);
    let tie_pi = 1e-3 / ((n as f64 + 1.0) * (top as f64 + 1.0));
    let pi: Vec<Variable> = (0..n)
        .filter(|_| order)
        .map(|v| {
            let var = m.integer(tie_pi, (lo(v), hi(v)));
            warm.push((var, start_pi[v] as f64));
            var
        })
        .collect();
    let x: BTreeMap<(usize, usize), Variable> = pairs
        .keys()
        .map(|&(a, b)| {
            let var = m.binary(tie_x);
            let apart = start_cluster[a] != start_cluster[b];
            warm.push((var, if apart { 1.0 } else { 0.0 }));
            ((a, b), var)
        })
        .collect();
    let x_of = |a: usize, b: usize| x.get(&(a, b)).or_else(|| x.get(&(b, a))).copied();
    let start_x = |a: usize, b: usize| f64::from(start_cluster[a] != start_cluster[b]);

    // Valid inequalities that tighten the relaxation (`cuts`).
    {
        let list: Vec<(usize, usize)> = pairs.keys().copied().collect();
        let xs: Vec<Variable> = list.iter().map(|k| x[k]).collect();
        for (i, j) in cuts::conflicts(s, &list) {
            m.constrain(
                &[(1.0, Term::Var(xs[i])), (1.0, Term::Var(xs[j]))],
                Cmp::Ge,
                1.0,
            );
        }
        for (ab, bc, ac) in cuts::triangles(n, &list) {
            m.constrain(
                &[
                    (1.0, Term::Var(xs[ac])),
                    (-1.0, Term::Var(xs[ab])),
                    (-1.0, Term::Var(xs[bc])),
                ],
                Cmp::Le,
                0.0,
            );
        }
    }

    // Ordering: fusible edges join or order, preventing edges order.
    for e in g.edge_references().filter(|_| order) {
        let (u, v) = (e.source().index(), e.target().index());
        match x_of(u, v).filter(|_| e.weight().fusible) {
            Some(xv) => {
                let big = (hi(v) - lo(u)).max(1) as f64;
                let d = [(1.0, Term::Var(pi[v])), (-1.0, Term::Var(pi[u]))];
                m.constrain(&[d[0], d[1], (-1.0, Term::Var(xv))], Cmp::Ge, 0.0);
                m.constrain(&[d[0], d[1], (-big, Term::Var(xv))], Cmp::Le, 0.0);
            }
            None => m.constrain(
                &[(1.0, Term::Var(pi[v])), (-1.0, Term::Var(pi[u]))],
                Cmp::Ge,
                1.0,
            ),
        }
    }
    // Readers of one array that share a loop have one cluster number.
    for (&(a, b), &fusible) in &pairs {
        if fusible || !order {
            continue;
        }
        let xv = x[&(a, b)];
        let big = ((hi(a) - lo(b)).max(hi(b) - lo(a))).max(1) as f64;
        for (p, q) in [(a, b), (b, a)] {
            m.constrain(
                &[
                    (1.0, Term::Var(pi[p])),
                    (-1.0, Term::Var(pi[q])),
                    (-big, Term::Var(xv)),
                ],
                Cmp::Le,
                0.0,
            );
        }
    }

    // Shared traits: one loop class and one direction per cluster.
    for dim in 0..2 {
        let mut fixed: Vec<&'static str> = (0..n).filter_map(|v| labels(graph, v)[dim]).collect();
        fixed.sort_unstable();
        fixed.dedup();
        if fixed.len() < 2 {
            continue;
        }
        // The trait of a start cluster: that of any member that has one.
        let mut start_trait: BTreeMap<usize, &'static str> = BTreeMap::new();
        for (v, &c) in start_cluster.iter().enumerate() {
            if let Some(l) = labels(graph, v)[dim] {
                start_trait.insert(c, l);
            }
        }
        let mut indicator: BTreeMap<usize, Vec<Term>> = BTreeMap::new();
        for v in 0..n {
            if g[NodeIndex::new(v)].soac.is_none() {
                continue;
            }
            let terms = match labels(graph, v)[dim] {
                Some(l) => fixed
                    .iter()
                    .map(|f| Term::Const(f64::from(*f == l)))
                    .collect(),
                None => {
                    let chosen = start_trait
                        .get(&start_cluster[v])
                        .copied()
                        .unwrap_or(fixed[0]);
                    let vars: Vec<Term> = fixed
                        .iter()
                        .map(|f| {
                            let var = m.binary(0.0);
                            warm.push((var, f64::from(*f == chosen)));
                            Term::Var(var)
                        })
                        .collect();
                    let sum: Vec<(f64, Term)> = vars.iter().map(|t| (1.0, *t)).collect();
                    m.constrain(&sum, Cmp::Eq, 1.0);
                    vars
                }
            };
            indicator.insert(v, terms);
        }
        for (&(a, b), &xv) in &x {
            for (&ta, &tb) in indicator[&a].iter().zip(&indicator[&b]) {
                for (p, q) in [(ta, tb), (tb, ta)] {
                    m.constrain(&[(1.0, p), (-1.0, q), (-1.0, Term::Var(xv))], Cmp::Le, 0.0);
                }
            }
        }
    }

    // Traffic: a read per (array, cluster) streaming it from memory, a
    // write per array some reader outside its producer's cluster needs.
    for (array, info) in &graph.arrays {
        let producer = info.producer.filter(|&p| p < n);
        let readers: Vec<usize> = info
            .readers
            .iter()
            .copied()
            .filter(|&r| r < n && Some(r) != producer)
            .collect();
        for (i, &r) in readers.iter().enumerate() {
            // `r` reads unless it shares a cluster with the producer or an
            // earlier reader.
            let mut sharing: Vec<(usize, Variable)> = readers[..i]
                .iter()
                .filter_map(|&q| x_of(q, r).map(|xv| (q, xv)))
                .collect();
            if let Some(xv) = producer.and_then(|p| x_of(p, r)) {
                sharing.push((producer.unwrap_or(r), xv));
            }
            if sharing.is_empty() {
                continue;
            }
            let read = m.var(info.bytes, (0.0, 1.0));
            let k = sharing.len() as f64;
            let mut terms = vec![(1.0, Term::Var(read))];
            terms.extend(sharing.iter().map(|&(_, xv)| (-1.0, Term::Var(xv))));
            m.constrain(&terms, Cmp::Ge, 1.0 - k);
            let together: f64 = sharing.iter().map(|&(q, _)| 1.0 - start_x(q, r)).sum();
            warm.push((read, (1.0 - together).max(0.0)));
        }
        let Some(p) = producer else { continue };
        if graph.always_manifest.contains(array) || readers.is_empty() {
            continue;
        }
        let edges: Option<Vec<(usize, Variable)>> = readers
            .iter()
            .map(|&r| x_of(p, r).map(|xv| (r, xv)))
            .collect();
        let Some(edges) = edges else { continue };
        let write = m.var(info.bytes, (0.0, 1.0));
        for &(_, xv) in &edges {
            m.constrain(
                &[(1.0, Term::Var(write)), (-1.0, Term::Var(xv))],
                Cmp::Ge,
                0.0,
            );
        }
        let written = edges.iter().any(|&(r, _)| start_x(p, r) > 0.5);
        warm.push((write, f64::from(written)));
    }

    // A filter family fuses whole or not at all; unfused, a member runs
    // after the `size` giving its width (the graph has no edge for that use).
    let mut family_apart = Vec::new();
    for family in &graph.sparse_groups {
        let xs: Vec<Option<Variable>> = family.edges.iter().map(|&(a, b)| x_of(a, b)).collect();
        let first = xs.first().copied().flatten();
        family_apart.push(first.filter(|_| xs.iter().all(Option::is_some)));
        match (first, xs.iter().all(Option::is_some)) {
            (Some(first), true) => {
                for xv in xs.iter().skip(1).flatten() {
                    m.constrain(
                        &[(1.0, Term::Var(*xv)), (-1.0, Term::Var(first))],
                        Cmp::Eq,
                        0.0,
                    );
                }
            }
            _ => {
                for xv in xs.iter().flatten() {
                    m.constrain(&[(1.0, Term::Var(*xv))], Cmp::Eq, 1.0);
                }
            }
        }
        for &(sz, c) in family.width_uses.iter().filter(|_| order) {
            let d = [(1.0, Term::Var(pi[c])), (-1.0, Term::Var(pi[sz]))];
            match first.filter(|_| xs.iter().all(Option::is_some)) {
                Some(first) => {
                    let big = (hi(sz) - lo(c)).max(0) as f64 + 1.0;
                    m.constrain(&[d[0], d[1], (-big, Term::Var(first))], Cmp::Ge, 1.0 - big);
                }
                None => m.constrain(&d, Cmp::Ge, 1.0),
            }
        }
    }

    for (var, value) in warm {
        m.lp.start[var] = value;
    }
    Built {
        lp: m.lp,
        integers: m.integers,
        pi,
        x,
        family_apart,
    }
}
