//! Exact clustering by dynamic programming over program order: a fusion
//! graph in, the clustering of least traffic (`objective::cost`) among the
//! legal ones (`objective::legal`) out, or nothing when the work limit is
//! reached.
//!
//! Statements are decided one at a time in program order (a topological
//! order): a SOAC joins a cluster still open or starts one. What the rest
//! of the body can see of the decisions so far is the *frontier*: the
//! statements decided so far that are related to a later one (an edge, a
//! sibling pair, an array they both read or one makes and the other reads,
//! a family's width use), the open clusters holding them, each cluster's
//! fixed traits, which open clusters reach which others through the part
//! decided, how each cluster's members are connected so far, and the
//! families whose fusion is decided but not finished. The frontier is a
//! separator: once a statement has no later relation, no later choice can
//! change its legality or cost.
//!
//! Of two partial clusterings whose frontiers group the same statements
//! alike (and decide the same families), one *dominates* the other when it
//! costs no more and its open clusters reach no more of each other, fix no
//! more traits and are no less connected: every legal completion of the
//! other completes it too, at the same added cost, so only it is kept.
//! And a partial clustering whose cost plus the least any completion must
//! still add (`bound.rs`) exceeds the cost of a known clustering (`upper`,
//! from `beam` or greedy) is dropped: branch and bound. See docs/fusion.md,
//! "Exact by dynamic programming", for the proofs.
//!
//! The work is the number of frontier states, which grows with how many
//! statements are related across each point of the program (in the
//! generated bodies, the arrays read from the latest few); past
//! `max_states` states at one point the method gives up, deterministically.

use super::bound::{bound, Bound};
use super::graph::FusionGraph;
use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;
use std::collections::HashMap;

/// The clustering found (`cluster[v]`, a representative per statement),
/// its cost, and the work done.
pub struct Exact {
    pub cluster: Vec<usize>,
    pub cost: f64,
    /// The most frontier states at one point, and their sum over all points.
    pub widest: usize,
    pub states: u64,
}

/// A family's fusion, once decided.
const UNKNOWN: u8 = 0;
const FUSED: u8 = 1;
const APART: u8 = 2;

/// What the transitions need, per statement, computed once.
struct Plan {
    soac: Vec<bool>,
    /// Interned loop class and direction (0: none).
    traits: Vec<(u8, u8)>,
    /// Edges into each statement: source and whether it is fusible.
    incoming: Vec<Vec<(usize, bool)>>,
    /// Earlier sibling partners.
    siblings: Vec<Vec<usize>>,
    /// Arrays each statement streams (indices into `arrays`).
    reads: Vec<Vec<usize>>,
    /// Bytes written whatever the clustering, charged at the producer.
    always: Vec<f64>,
    /// Family edges into each statement: family and source.
    family_edges: Vec<Vec<(usize, usize)>>,
    /// Width uses into each statement: family and size statement.
    width_uses: Vec<Vec<(usize, usize)>>,
    arrays: Vec<Array>,
    /// Statements on the frontier after each statement is decided.
    active: Vec<Vec<usize>>,
    /// Families open after each statement (decided only once open).
    families: Vec<Vec<usize>>,
    /// Families without edges are never fused.
    empty_family: Vec<bool>,
    /// Lower bounds on the bytes still to come after each statement.
    bound: Bound,
}

struct Array {
    bytes: f64,
    producer: Option<usize>,
    readers: Vec<usize>,
    always: bool,
}

fn plan(graph: &FusionGraph) -> Option<Plan> {
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

/// A partial clustering, described by its frontier. Clusters and
/// components are numbered by first appearance among the frontier's
/// statements, so equal frontiers have equal keys.
#[derive(Clone)]
struct State {
    cost: f64,
    loops: u32,
    /// Per frontier statement: its cluster and its component (the part of
    /// its cluster connected to it by fusible edges and sibling pairs).
    slot: Vec<(u8, u8)>,
    /// Per open cluster: fixed loop class and direction.
    traits: Vec<(u8, u8)>,
    /// Per open cluster: the open clusters it reaches (bit sets).
    reach: Vec<u64>,
    /// Per open cluster: its first statement (not part of the key).
    rep: Vec<u32>,
    /// Per open family: `UNKNOWN`, `FUSED` or `APART`.
    family: Vec<u8>,
}

impl State {
    /// What states must share to be compared: the frontier's clusters
    /// and the families' fusion.
    fn key(&self) -> Vec<u8> {
        let mut key = Vec::with_capacity(self.slot.len() + self.family.len() + 1);
        key.extend(self.slot.iter().map(|x| x.0));
        key.push(255);
        key.extend(&self.family);
        key
    }

    /// Whether every completion of `other` completes `self` as well, at
    /// least as cheaply (both of one key): no dearer, its clusters reach no
    /// more of each other, fix no more traits and are no less connected.
    fn dominates(&self, other: &State) -> bool {
        if other.better_than(self) {
            return false;
        }
        let fixes_less = |a: u8, b: u8| a == 0 || a == b;
        if !self
            .traits
            .iter()
            .zip(&other.traits)
            .all(|(a, b)| fixes_less(a.0, b.0) && fixes_less(a.1, b.1))
        {
            return false;
        }
        if self
            .reach
            .iter()
            .zip(&other.reach)
            .any(|(a, b)| a & !b != 0)
        {
            return false;
        }
        // Components: each of `other`'s lies within one of `self`'s.
        let mut within = [u8::MAX; 256];
        self.slot.iter().zip(&other.slot).all(|(a, b)| {
            let w = &mut within[b.1 as usize];
            if *w == u8::MAX {
                *w = a.1;
            }
            *w == a.1
        })
    }

    fn better_than(&self, other: &State) -> bool {
        self.cost < other.cost || (self.cost == other.cost && self.loops < other.loops)
    }
}

/// The least-traffic legal clustering, or `None` when more than
/// `max_states` frontier states arise at some point or more than
/// `max_total` in all (or the graph is not in program order). States
/// whose cost plus the least still to come (`bound.rs`) exceeds `upper`
/// are dropped: pass the cost of a known legal clustering, or infinity.
pub fn solve(graph: &FusionGraph, max_states: usize, max_total: u64, upper: f64) -> Option<Exact> {
    search(graph, max_states, max_total, upper, None)
}

/// A legal clustering found by keeping only the `width` states of least
/// cost plus the least still to come at each point (a beam): no proof of
/// optimality, but a good upper bound for `solve`, found in time linear
/// in the body. Some states have no legal completion (a cluster whose
/// parts are not yet connected); so that the beam never ends with none,
/// it also keeps the best *safe* state, where every open cluster is
/// connected and no family is fused: putting the next statement in a
/// cluster of its own keeps it safe. `None` if the graph is not in
/// program order or too wide.
pub fn beam(graph: &FusionGraph, width: usize) -> Option<Exact> {
    search(
        graph,
        usize::MAX,
        u64::MAX,
        f64::INFINITY,
        Some(width.max(1)),
    )
}

/// Bytes a state after statement `v` must still add: the bound for every
/// state, and the writes it still owes.
fn still_to_come(plan: &Plan, v: usize, state: &State) -> f64 {
    let owed: f64 = plan.bound.pending[v]
        .iter()
        .filter(|w| {
            let home = state.slot[w.producer].0;
            w.readers.iter().all(|&r| state.slot[r].0 == home)
        })
        .map(|w| w.bytes)
        .sum();
    plan.bound.rest[v] + owed
}

fn search(
    graph: &FusionGraph,
    max_states: usize,
    max_total: u64,
    upper: f64,
    beam: Option<usize>,
) -> Option<Exact> {
    let plan = plan(graph)?;
    let n = plan.soac.len();
    if plan.active.iter().any(|a| a.len() > 120) {
        return None;
    }
    let mut states = vec![State {
        cost: 0.0,
        loops: 0,
        slot: Vec::new(),
        traits: Vec::new(),
        reach: Vec::new(),
        rep: Vec::new(),
        family: Vec::new(),
    }];
    // Per point: each state's parent and the cluster its statement joined.
    let mut trail: Vec<Vec<(u32, u32)>> = Vec::with_capacity(n);
    let mut pos = vec![usize::MAX; n];
    let mut widest = 1;
    let mut total = 0u64;
    let empty = Vec::new();
    for v in 0..n {
        let prev_active = if v == 0 { &empty } else { &plan.active[v - 1] };
        let prev_families = if v == 0 {
            &empty
        } else {
            &plan.families[v - 1]
        };
        for (i, &s) in prev_active.iter().enumerate() {
            pos[s] = i;
        }
        let mut next: Vec<State> = Vec::new();
        let mut parents: Vec<(u32, u32)> = Vec::new();
        let mut index: HashMap<Vec<u8>, Vec<usize>> = HashMap::new();
        let mut alive: Vec<bool> = Vec::new();
        let mut count = 0usize;
        let step = Step {
            plan: &plan,
            v,
            pos: &pos,
            prev_families,
            upper: upper - plan.bound.rest[v],
        };
        for (si, state) in states.iter().enumerate() {
            let k = state.traits.len();
            let choices = if plan.soac[v] { 0..=k } else { k..=k };
            for c in choices {
                for out in step.transitions(state, c)? {
                    let rep = out.1;
                    let out = out.0;
                    if out.cost + still_to_come(&plan, v, &out) > upper {
                        continue;
                    }
                    let kept = index.entry(out.key()).or_default();
                    if kept.iter().any(|&i| next[i].dominates(&out)) {
                        continue;
                    }
                    kept.retain(|&i| {
                        let beaten = out.dominates(&next[i]);
                        if beaten {
                            alive[i] = false;
                            count -= 1;
                        }
                        !beaten
                    });
                    kept.push(next.len());
                    next.push(out);
                    parents.push((si as u32, rep));
                    alive.push(true);
                    count += 1;
                    if count > max_states && beam.is_none() {
                        return None;
                    }
                }
            }
        }
        for &s in prev_active {
            pos[s] = usize::MAX;
        }
        if count < next.len() {
            let mut i = 0;
            next.retain(|_| {
                i += 1;
                alive[i - 1]
            });
            let mut i = 0;
            parents.retain(|_| {
                i += 1;
                alive[i - 1]
            });
        }
        if let Some(width) = beam.filter(|&w| next.len() > w) {
            let score: Vec<f64> = next
                .iter()
                .map(|s| s.cost + still_to_come(&plan, v, s))
                .collect();
            let mut order: Vec<usize> = (0..next.len()).collect();
            order.sort_by(|&a, &b| {
                score[a]
                    .total_cmp(&score[b])
                    .then(next[a].loops.cmp(&next[b].loops))
                    .then(a.cmp(&b))
            });
            let safe = |s: &State| {
                s.family.iter().all(|&f| f != FUSED)
                    && s.slot
                        .iter()
                        .all(|a| s.slot.iter().all(|b| a.0 != b.0 || a.1 == b.1))
            };
            if !order[..width].iter().any(|&i| safe(&next[i])) {
                if let Some(i) = order[width..].iter().position(|&i| safe(&next[i])) {
                    order.swap(width - 1, width + i);
                }
            }
            order.truncate(width);
            order.sort_unstable();
            next = order.iter().map(|&i| next[i].clone()).collect();
            parents = order.iter().map(|&i| parents[i]).collect();
        }
        widest = widest.max(next.len());
        total += next.len() as u64;
        if next.len() > max_states || total > max_total || next.is_empty() {
            return None;
        }
        trail.push(parents);
        states = next;
    }
    let (mut best, _) = states
        .iter()
        .enumerate()
        .fold((0, &states[0]), |(bi, b), (i, s)| {
            if s.better_than(b) {
                (i, s)
            } else {
                (bi, b)
            }
        });
    let cost = states[best].cost;
    let mut cluster = vec![0; n];
    for v in (0..n).rev() {
        let (parent, rep) = trail[v][best];
        cluster[v] = rep as usize;
        best = parent as usize;
    }
    Some(Exact {
        cluster,
        cost,
        widest,
        states: total,
    })
}

struct Step<'a> {
    plan: &'a Plan,
    v: usize,
    /// Position of each statement on the previous frontier.
    pos: &'a [usize],
    prev_families: &'a [usize],
    upper: f64,
}

impl Step<'_> {
    /// The states reached by putting statement `v` in cluster `c` (`c` equal
    /// to the number of open clusters: a new one), with the representative
    /// of its cluster; `None` if the plan is inconsistent (a related
    /// statement off the frontier).
    #[allow(clippy::type_complexity)]
    fn transitions(&self, state: &State, c: usize) -> Option<Vec<(State, u32)>> {
        let (plan, v) = (self.plan, self.v);
        let new = c == state.traits.len();
        if !new {
            let (t, u) = (state.traits[c], plan.traits[v]);
            if !plan.soac[state.rep[c] as usize]
                || (t.0 != 0 && u.0 != 0 && t.0 != u.0)
                || (t.1 != 0 && u.1 != 0 && t.1 != u.1)
            {
                return Some(Vec::new());
            }
        }
        let mut s = state.clone();
        if new {
            if c >= 63 {
                return None;
            }
            s.traits.push(plan.traits[v]);
            s.reach.push(0);
            s.rep.push(v as u32);
            if plan.soac[v] {
                s.loops += 1;
            }
        } else {
            let (t, u) = (s.traits[c], plan.traits[v]);
            s.traits[c] = (t.0.max(u.0), t.1.max(u.1));
        }
        let fresh = s.slot.iter().map(|x| x.1).max().map_or(0, |m| m + 1);
        s.slot.push((c as u8, fresh));
        let me = s.slot.len() - 1;
        let cluster_of = |s: &State, u: usize| -> Option<usize> {
            let p = *self.pos.get(u)?;
            (p != usize::MAX).then(|| s.slot[p].0 as usize)
        };
        let mut order: Vec<usize> = Vec::new();
        for &(u, fusible) in &plan.incoming[v] {
            let cu = cluster_of(&s, u)?;
            if cu == c {
                if !fusible {
                    return Some(Vec::new());
                }
                join(&mut s.slot, self.pos[u], me);
            } else {
                order.push(cu);
            }
        }
        for &u in &plan.siblings[v] {
            if cluster_of(&s, u)? == c {
                join(&mut s.slot, self.pos[u], me);
            }
        }
        // Families: each edge into `v` is fused or not, all alike.
        let mut family: Families = Families(
            self.prev_families
                .iter()
                .zip(&s.family)
                .map(|(&f, &st)| (f, st))
                .collect(),
        );
        for &(f, p) in &plan.family_edges[v] {
            let now = if cluster_of(&s, p)? == c {
                FUSED
            } else {
                APART
            };
            let st = family.get(f).unwrap_or(UNKNOWN);
            if st != UNKNOWN && st != now {
                return Some(Vec::new());
            }
            family.set(f, now);
        }
        // Reads and writes of the arrays `v` streams, against its
        // earlier readers, all on the frontier.
        for &a in &plan.reads[v] {
            let array = &plan.arrays[a];
            let home = match array.producer {
                Some(p) => Some(cluster_of(&s, p)?),
                None => None,
            };
            if home == Some(c) {
                continue;
            }
            let mut shared = false;
            let mut outside = false;
            for &r in array.readers.iter().take_while(|&&r| r < v) {
                let cr = cluster_of(&s, r)?;
                shared |= cr == c;
                outside |= Some(cr) != home;
            }
            if !shared {
                s.cost += array.bytes;
            }
            if home.is_some() && !outside && !array.always {
                s.cost += array.bytes;
            }
        }
        s.cost += plan.always[v];
        if s.cost > self.upper {
            return Some(Vec::new());
        }
        // Width uses: ordering edges when their family is apart; a family
        // still undecided is tried both ways.
        let mut undecided: Vec<usize> = Vec::new();
        for &(f, _) in &plan.width_uses[v] {
            let st = family
                .get(f)
                .unwrap_or(if plan.empty_family[f] { APART } else { UNKNOWN });
            family.set(f, st);
            if st == UNKNOWN && !undecided.contains(&f) {
                undecided.push(f);
            }
        }
        let mut out = Vec::new();
        for guess in 0..(1u32 << undecided.len()) {
            let mut s = s.clone();
            let mut family = family.clone();
            for (i, &f) in undecided.iter().enumerate() {
                family.set(f, if guess >> i & 1 == 1 { FUSED } else { APART });
            }
            let mut order = order.clone();
            let mut legal = true;
            for &(f, u) in &plan.width_uses[v] {
                if family.get(f) == Some(APART) {
                    let cu = cluster_of(&s, u)?;
                    if cu == c {
                        legal = false;
                    }
                    order.push(cu);
                }
            }
            if !legal {
                continue;
            }
            // No cycle: `c` must not reach a cluster that now reaches it.
            if order.iter().any(|&d| s.reach[c] >> d & 1 == 1) {
                continue;
            }
            let into = s.reach[c] | 1 << c;
            for &d in &order {
                for x in 0..s.reach.len() {
                    if x == d || s.reach[x] >> d & 1 == 1 {
                        s.reach[x] |= into;
                    }
                }
            }
            let rep = s.rep[c];
            if let Some(done) = close(&mut s, &plan.active[v], self.pos, v, &family, plan) {
                if done {
                    out.push((s, rep));
                }
            } else {
                return None;
            }
        }
        Some(out)
    }
}

/// The fusion of the families a transition sees, by family.
#[derive(Clone)]
struct Families(Vec<(usize, u8)>);

impl Families {
    fn get(&self, f: usize) -> Option<u8> {
        self.0.iter().find(|x| x.0 == f).map(|x| x.1)
    }

    fn set(&mut self, f: usize, st: u8) {
        match self.0.iter_mut().find(|x| x.0 == f) {
            Some(x) => x.1 = st,
            None => self.0.push((f, st)),
        }
    }
}

/// Puts the components of slots `a` and `b` together.
fn join(slot: &mut [(u8, u8)], a: usize, b: usize) {
    let (ka, kb) = (slot[a].1, slot[b].1);
    if ka != kb {
        for x in slot.iter_mut() {
            if x.1 == kb {
                x.1 = ka;
            }
        }
    }
}

/// Moves the state from the previous frontier plus `v` to the frontier
/// after `v`, numbering clusters and components afresh. `Some(false)` when a
/// component leaves the frontier while its cluster has another one (it can
/// never be connected), `None` when a statement of the new frontier is
/// unknown.
fn close(
    s: &mut State,
    active: &[usize],
    pos: &[usize],
    v: usize,
    family: &Families,
    plan: &Plan,
) -> Option<bool> {
    let slot_of = |u: usize| if u == v { s.slot.len() - 1 } else { pos[u] };
    let kept: Vec<usize> = active.iter().map(|&u| slot_of(u)).collect();
    if kept.contains(&usize::MAX) {
        return None;
    }
    // Components per cluster, and those still on the frontier.
    let k = s.traits.len();
    let mut comps: Vec<Vec<u8>> = vec![Vec::new(); k];
    for &(c, m) in &s.slot {
        if !comps[c as usize].contains(&m) {
            comps[c as usize].push(m);
        }
    }
    let mut live: Vec<Vec<u8>> = vec![Vec::new(); k];
    for &p in &kept {
        let (c, m) = s.slot[p];
        if !live[c as usize].contains(&m) {
            live[c as usize].push(m);
        }
    }
    for c in 0..k {
        // Components that left earlier are counted in `comps` only if they
        // still had a slot: a cluster with one that left is split for good.
        if comps[c].len() > 1 && live[c].len() < comps[c].len() {
            return Some(false);
        }
    }
    let mut cluster_map = vec![u8::MAX; k];
    let mut comp_map = [u8::MAX; 256];
    let mut comps_seen = 0u8;
    let mut slot = Vec::with_capacity(kept.len());
    let mut open = 0u8;
    for &p in &kept {
        let (c, m) = s.slot[p];
        if cluster_map[c as usize] == u8::MAX {
            cluster_map[c as usize] = open;
            open += 1;
        }
        if comp_map[m as usize] == u8::MAX {
            comp_map[m as usize] = comps_seen;
            comps_seen += 1;
        }
        let m = comp_map[m as usize];
        slot.push((cluster_map[c as usize], m));
    }
    let mut traits = vec![(0, 0); open as usize];
    let mut reach = vec![0u64; open as usize];
    let mut rep = vec![0u32; open as usize];
    for c in 0..k {
        let to = cluster_map[c];
        if to == u8::MAX {
            continue;
        }
        traits[to as usize] = s.traits[c];
        rep[to as usize] = s.rep[c];
        let mut r = 0u64;
        for (d, &to) in cluster_map.iter().enumerate() {
            if s.reach[c] >> d & 1 == 1 && to != u8::MAX {
                r |= 1 << to;
            }
        }
        reach[to as usize] = r;
    }
    s.slot = slot;
    s.traits = traits;
    s.reach = reach;
    s.rep = rep;
    s.family = plan.families[v]
        .iter()
        .map(|&f| family.get(f).unwrap_or(UNKNOWN))
        .collect();
    Some(true)
}
