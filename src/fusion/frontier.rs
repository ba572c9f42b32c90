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
//! from `beam` or greedy) is dropped: branch and bound. `prove` drops it
//! already when it cannot beat a known clustering (in cost, then loops),
//! and returns that clustering when nothing does. See docs/fusion.md,
//! "Exact by dynamic programming", for the proofs.
//!
//! The work is the number of frontier states, which grows with how many
//! statements are related across each point of the program (in the
//! generated bodies, the arrays read from the latest few); past
//! `max_states` states at one point the method gives up, deterministically.

mod contract;
mod cut;
mod plan;

use super::graph::FusionGraph;
use petgraph::graph::NodeIndex;
use plan::{plan, Plan};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

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

/// A partial clustering, described by its frontier. Clusters and
/// components are numbered by first appearance among the frontier's
/// statements, so equal frontiers have equal keys.
#[derive(Clone, Default)]
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
    /// A copy with room for one more statement and cluster, so that the
    /// transition that follows allocates nothing more.
    fn grown(&self) -> State {
        let with_room = |len: usize| len + 1;
        let mut slot = Vec::with_capacity(with_room(self.slot.len()));
        slot.extend_from_slice(&self.slot);
        let mut traits = Vec::with_capacity(with_room(self.traits.len()));
        traits.extend_from_slice(&self.traits);
        let mut reach = Vec::with_capacity(with_room(self.reach.len()));
        reach.extend_from_slice(&self.reach);
        let mut rep = Vec::with_capacity(with_room(self.rep.len()));
        rep.extend_from_slice(&self.rep);
        State {
            cost: self.cost,
            loops: self.loops,
            slot,
            traits,
            reach,
            rep,
            family: self.family.clone(),
        }
    }

    /// A hash of what states must share to be compared (`same_group`).
    fn group_hash(&self) -> u64 {
        let clusters = self.slot.iter().map(|x| x.0);
        let bytes = clusters.chain([u8::MAX]).chain(self.family.iter().copied());
        bytes.fold(FNV_OFFSET, |h, b| (h ^ b as u64).wrapping_mul(FNV_PRIME))
    }

    /// Whether the two can be compared: the frontier's clusters and the
    /// families' fusion are the same.
    fn same_group(&self, other: &State) -> bool {
        self.slot.len() == other.slot.len()
            && self.slot.iter().zip(&other.slot).all(|(a, b)| a.0 == b.0)
            && self.family == other.family
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

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0100_0000_01b3;

/// A hasher for keys that are hashes already (`State::group_hash`).
#[derive(Default)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(FNV_PRIME);
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = x;
    }
}

/// No index of a state: the end of a group's chain.
const NONE: u32 = u32::MAX;

/// The least-traffic legal clustering, or `None` when more than
/// `max_states` frontier states arise at some point or more than
/// `max_total` in all (or the graph is not in program order). States
/// whose cost plus the least still to come (`bound.rs`) exceeds `upper`
/// are dropped: pass the cost of a known legal clustering, or infinity.
pub fn solve(graph: &FusionGraph, max_states: usize, max_total: u64, upper: f64) -> Option<Exact> {
    let upper = Incumbent {
        cost: upper,
        loops: u32::MAX,
    };
    match search(graph, max_states, max_total, upper, None)? {
        End::Found(found) => Some(found),
        End::Beaten { .. } => None,
    }
}

/// The least-traffic legal clustering, fewest loops among equals, proven
/// against the legal clustering `incumbent` (`cluster[v]`, as `Exact`'s):
/// only states that could still beat it, in cost or in loops at equal
/// cost, are kept, so the search ends either with a better clustering or
/// with none, which proves the incumbent optimal; it is then returned.
/// `None` past the same limits as `solve`.
pub fn prove(
    graph: &FusionGraph,
    max_states: usize,
    max_total: u64,
    incumbent: &[usize],
) -> Option<Exact> {
    let cost = super::objective::cost(graph, incumbent);
    let upper = Incumbent {
        cost,
        loops: loops(graph, incumbent) as u32,
    };
    match search(graph, max_states, max_total, upper, None)? {
        End::Found(found) => Some(found),
        End::Beaten { widest, states } => Some(Exact {
            cluster: incumbent.to_vec(),
            cost,
            widest,
            states,
        }),
    }
}

/// The loops of a clustering: its clusters holding SOACs.
fn loops(graph: &FusionGraph, cluster: &[usize]) -> usize {
    let g = &graph.graph;
    let mut loops: Vec<usize> = (0..g.node_count())
        .filter(|&v| g[NodeIndex::new(v)].soac.is_some())
        .map(|v| cluster[v])
        .collect();
    loops.sort_unstable();
    loops.dedup();
    loops.len()
}

/// A lower bound on the cost of every legal clustering: what the bound
/// (`bound.rs`) says is still to come after the first statement, plus the
/// writes that statement makes whatever the clustering. `None` where the
/// graph is not in program order.
pub fn root_bound(graph: &FusionGraph) -> Option<f64> {
    let plan = plan(graph)?;
    Some(plan.bound.rest.first().copied().unwrap_or(0.0) + plan.always.first().unwrap_or(&0.0))
}

/// What a completion must beat: a cost, and at that cost a number of
/// loops (`u32::MAX`: a completion of equal cost survives).
#[derive(Clone, Copy)]
struct Incumbent {
    cost: f64,
    loops: u32,
}

impl Incumbent {
    /// Whether a partial clustering of `loops` loops whose completions
    /// all cost at least `least` can beat it (loops never decrease).
    fn beatable(&self, least: f64, loops: u32) -> bool {
        least < self.cost || (least == self.cost && loops < self.loops)
    }
}

/// How a search ends: with the best clustering among the states kept, or
/// with none kept (none beats the incumbent).
enum End {
    Found(Exact),
    Beaten { widest: usize, states: u64 },
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
    let none = Incumbent {
        cost: f64::INFINITY,
        loops: u32::MAX,
    };
    match search(graph, usize::MAX, u64::MAX, none, Some(width.max(1)))? {
        End::Found(found) => Some(found),
        End::Beaten { .. } => None,
    }
}

/// Bytes a state after statement `v` must still add: the bound for every
/// state (`Bound::rest`), plus what the arrays between their first reader
/// and their last still cost given where their producer and readers so
/// far are (`bound::Live`): later readers that cannot join any of those
/// clusters, pairwise apart, beyond the reads `rest` counts, and the write
/// while it is still owed. Only the exact search uses the second part: it
/// costs a pass over the state, and ranking the beam's states by it made
/// the beam's clustering worse on the generated bodies (mixed 30: 80,000
/// bytes instead of 76,000).
fn still_to_come(plan: &Plan, v: usize, state: &State) -> f64 {
    let live = &plan.bound.live[v];
    // Each open cluster's frontier positions.
    let mut members = [0u128; 64];
    for (k, &(c, _)) in state.slot.iter().enumerate() {
        members[c as usize] |= 1 << k;
    }
    let mut extra = 0.0;
    for a in live {
        let holding = a
            .decided
            .iter()
            .fold(0u64, |m, &d| m | 1 << state.slot[d].0);
        // Later readers that must read the array in a cluster of their
        // own: apart from a member of each cluster that holds its
        // producer or a decided reader.
        let mut chosen = 0u64;
        let mut count = 0;
        for (r, &apart) in a.later.iter().enumerate() {
            let mut clusters = holding;
            let mut blocked = true;
            while clusters != 0 {
                let c = clusters.trailing_zeros() as usize;
                clusters &= clusters - 1;
                if members[c] & apart == 0 {
                    blocked = false;
                    break;
                }
            }
            if blocked && a.later_apart[r] & chosen == chosen {
                chosen |= 1 << r;
                count += 1;
            }
        }
        if count > a.counted {
            extra += a.bytes * (count - a.counted) as f64;
        }
        // The write: owed while every decided reader shares the
        // producer's cluster and a later reader cannot join it.
        if let Some(p) = a.producer {
            let home = state.slot[p].0;
            if holding == 1 << home
                && a.later
                    .iter()
                    .any(|&apart| members[home as usize] & apart != 0)
            {
                extra += a.bytes;
            }
        }
    }
    plan.bound.rest[v] + extra
}

/// `search_ordered` on the graph with its safe pairs contracted
/// (`contract`), the clustering expanded back; the incumbent and the
/// costs move by the contracted graph's constant offset.
fn search(
    graph: &FusionGraph,
    max_states: usize,
    max_total: u64,
    upper: Incumbent,
    beam: Option<usize>,
) -> Option<End> {
    let Some(contracted) = contract::contract(graph) else {
        return search_ordered(graph, max_states, max_total, upper, beam);
    };
    let upper = Incumbent {
        cost: upper.cost - contracted.offset,
        loops: upper.loops,
    };
    match search_ordered(&contracted.graph, max_states, max_total, upper, beam)? {
        End::Found(found) => {
            let cluster = contracted.expand(&found.cluster);
            Some(End::Found(Exact {
                cost: super::objective::cost(graph, &cluster),
                cluster,
                ..found
            }))
        }
        beaten => Some(beaten),
    }
}

/// `search_in_order` in the order of `cut::narrow_order` where its
/// frontiers are narrower than program order's, the clustering numbered
/// back. A beam runs in both orders (what it keeps depends on the order)
/// and keeps the better clustering, program order's among equals.
fn search_ordered(
    graph: &FusionGraph,
    max_states: usize,
    max_total: u64,
    upper: Incumbent,
    beam: Option<usize>,
) -> Option<End> {
    let Some(order) = cut::narrow_order(graph) else {
        return search_in_order(graph, max_states, max_total, upper, beam);
    };
    let renumbered = cut::renumbered(graph, &order);
    let found = match search_in_order(&renumbered, max_states, max_total, upper, beam)? {
        End::Found(mut found) => {
            let mut cluster = vec![0; order.len()];
            for (i, &rep) in found.cluster.iter().enumerate() {
                cluster[order[i]] = order[rep];
            }
            found.cluster = cluster;
            found
        }
        beaten => return Some(beaten),
    };
    if beam.is_none() {
        return Some(End::Found(found));
    }
    let Some(End::Found(plain)) = search_in_order(graph, max_states, max_total, upper, beam) else {
        return Some(End::Found(found));
    };
    let rank = |e: &Exact| (e.cost, loops(graph, &e.cluster));
    let (widest, states) = (found.widest.max(plain.widest), found.states + plain.states);
    let better = if rank(&found) < rank(&plain) {
        found
    } else {
        plain
    };
    Some(End::Found(Exact {
        widest,
        states,
        ..better
    }))
}

fn search_in_order(
    graph: &FusionGraph,
    max_states: usize,
    max_total: u64,
    upper: Incumbent,
    beam: Option<usize>,
) -> Option<End> {
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
        // States of one group (`same_group`) are compared with each other:
        // per group, its first state and its newest, then each state's older
        // neighbour. A group is found by its hash, or the next free one
        // where another group has it.
        let mut groups: HashMap<u64, (u32, u32), BuildHasherDefault<Prehashed>> =
            HashMap::default();
        let mut older: Vec<u32> = Vec::new();
        let mut alive: Vec<bool> = Vec::new();
        let mut count = 0usize;
        let mut gave_up = false;
        let step = Step {
            plan: &plan,
            v,
            pos: &pos,
            prev_families,
            upper,
            rest: plan.bound.rest[v],
        };
        for (si, state) in states.iter().enumerate() {
            let k = state.traits.len();
            let choices = if plan.soac[v] { 0..=k } else { k..=k };
            for c in choices {
                step.transitions(state, c, &mut |out, rep| {
                    // The state-dependent part of the bound only where
                    // it can still prune.
                    let least = out.cost + plan.bound.rest[v];
                    let least = if upper.beatable(least + plan.bound.live_most[v], out.loops) {
                        least
                    } else {
                        out.cost + still_to_come(&plan, v, &out)
                    };
                    if gave_up || !upper.beatable(least, out.loops) {
                        return;
                    }
                    let mut hash = out.group_hash();
                    while let Some(&(first, _)) = groups.get(&hash) {
                        if next[first as usize].same_group(&out) {
                            break;
                        }
                        hash = hash.wrapping_add(1);
                    }
                    let (_, head) = groups.entry(hash).or_insert((next.len() as u32, NONE));
                    // Unlink the states beaten so far while looking for one
                    // that dominates `out`.
                    let (mut i, mut link): (u32, Option<u32>) = (*head, None);
                    while i != NONE {
                        let j = i as usize;
                        if !alive[j] {
                            match link {
                                None => *head = older[j],
                                Some(l) => older[l as usize] = older[j],
                            }
                        } else {
                            if next[j].dominates(&out) {
                                return;
                            }
                            link = Some(i);
                        }
                        i = older[j];
                    }
                    let mut i = *head;
                    while i != NONE {
                        let j = i as usize;
                        if out.dominates(&next[j]) {
                            alive[j] = false;
                            count -= 1;
                        }
                        i = older[j];
                    }
                    older.push(*head);
                    *head = next.len() as u32;
                    next.push(out);
                    parents.push((si as u32, rep));
                    alive.push(true);
                    count += 1;
                    gave_up = count > max_states && beam.is_none();
                })?;
                if gave_up {
                    return None;
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
            let score: Vec<f64> = next.iter().map(|s| s.cost + plan.bound.rest[v]).collect();
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
        if next.len() > max_states || total > max_total {
            return None;
        }
        if next.is_empty() {
            return Some(End::Beaten {
                widest,
                states: total,
            });
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
    Some(End::Found(Exact {
        cluster,
        cost,
        widest,
        states: total,
    }))
}

struct Step<'a> {
    plan: &'a Plan,
    v: usize,
    /// Position of each statement on the previous frontier.
    pos: &'a [usize],
    prev_families: &'a [usize],
    upper: Incumbent,
    /// The bound every state after `v` adds (`Bound::rest`).
    rest: f64,
}

impl Step<'_> {
    /// Gives `emit` the states reached by putting statement `v` in cluster
    /// `c` (`c` equal to the number of open clusters: a new one), each with
    /// the representative of its cluster; `None` if the plan is
    /// inconsistent (a related statement off the frontier).
    fn transitions(
        &self,
        state: &State,
        c: usize,
        emit: &mut impl FnMut(State, u32),
    ) -> Option<()> {
        let (plan, v) = (self.plan, self.v);
        let new = c == state.traits.len();
        if !new {
            let (t, u) = (state.traits[c], plan.traits[v]);
            if !plan.soac[state.rep[c] as usize]
                || (t.0 != 0 && u.0 != 0 && t.0 != u.0)
                || (t.1 != 0 && u.1 != 0 && t.1 != u.1)
            {
                return Some(());
            }
        }
        let mut s = state.grown();
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
        // The clusters that must come before `c` (bits; fewer than 64).
        let mut order = 0u64;
        for &(u, fusible) in &plan.incoming[v] {
            let cu = cluster_of(&s, u)?;
            if cu == c {
                if !fusible {
                    return Some(());
                }
                join(&mut s.slot, self.pos[u], me);
            } else {
                order |= 1 << cu;
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
                return Some(());
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
        if !self.upper.beatable(s.cost + self.rest, s.loops) {
            return Some(());
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
        let guesses = 1u32 << undecided.len();
        for guess in 0..guesses {
            // The last guess takes the state itself instead of a copy.
            let last = guess + 1 == guesses;
            let mut s = if last {
                std::mem::take(&mut s)
            } else {
                s.grown()
            };
            let mut family = if last {
                std::mem::take(&mut family)
            } else {
                family.clone()
            };
            for (i, &f) in undecided.iter().enumerate() {
                family.set(f, if guess >> i & 1 == 1 { FUSED } else { APART });
            }
            let mut order = order;
            let mut legal = true;
            for &(f, u) in &plan.width_uses[v] {
                if family.get(f) == Some(APART) {
                    let cu = cluster_of(&s, u)?;
                    if cu == c {
                        legal = false;
                    }
                    order |= 1 << cu;
                }
            }
            if !legal {
                continue;
            }
            // No cycle: `c` must not reach a cluster that now reaches it.
            if order & s.reach[c] != 0 {
                continue;
            }
            let into = s.reach[c] | 1 << c;
            for d in 0..s.reach.len() {
                if order >> d & 1 == 0 {
                    continue;
                }
                for x in 0..s.reach.len() {
                    if x == d || s.reach[x] >> d & 1 == 1 {
                        s.reach[x] |= into;
                    }
                }
            }
            let rep = s.rep[c];
            if close(&mut s, &plan.active[v], self.pos, v, &family, plan)? {
                emit(s, rep);
            }
        }
        Some(())
    }
}

/// The fusion of the families a transition sees, by family.
#[derive(Clone, Default)]
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
/// after `v`, numbering clusters and components afresh, in place.
/// `Some(false)` when a component leaves the frontier while its cluster has
/// another one (it can never be connected), `None` when a statement of the
/// new frontier is unknown.
fn close(
    s: &mut State,
    active: &[usize],
    pos: &[usize],
    v: usize,
    family: &Families,
    plan: &Plan,
) -> Option<bool> {
    // Frontiers hold at most 120 statements (`search`), so slots and
    // components number at most 121, and clusters fewer than 64
    // (`Step::transitions`): bit sets and arrays on the stack suffice.
    let last = s.slot.len() - 1;
    let slot_of = |u: usize| if u == v { last } else { pos[u] };
    let mut kept = [0u8; 128];
    for (k, &u) in kept.iter_mut().zip(active) {
        let p = slot_of(u);
        if p == usize::MAX {
            return None;
        }
        *k = p as u8;
    }
    let kept = &kept[..active.len()];
    // Components per cluster, and those still on the frontier.
    let mut comps = [0u8; 64];
    let mut live = [0u8; 64];
    let (mut seen, mut seen_live) = (0u128, 0u128);
    for &(c, m) in &s.slot {
        if seen >> m & 1 == 0 {
            seen |= 1 << m;
            comps[c as usize] += 1;
        }
    }
    for &p in kept {
        let (c, m) = s.slot[p as usize];
        if seen_live >> m & 1 == 0 {
            seen_live |= 1 << m;
            live[c as usize] += 1;
        }
    }
    let k = s.traits.len();
    // Components that left earlier are counted in `comps` only if they
    // still had a slot: a cluster with one that left is split for good.
    if (0..k).any(|c| comps[c] > 1 && live[c] < comps[c]) {
        return Some(false);
    }
    let mut cluster_map = [u8::MAX; 64];
    let mut comp_map = [u8::MAX; 128];
    let mut comps_seen = 0u8;
    let mut slot = [(0u8, 0u8); 128];
    let mut open = 0u8;
    for (new, &p) in slot.iter_mut().zip(kept) {
        let (c, m) = s.slot[p as usize];
        if cluster_map[c as usize] == u8::MAX {
            cluster_map[c as usize] = open;
            open += 1;
        }
        if comp_map[m as usize] == u8::MAX {
            comp_map[m as usize] = comps_seen;
            comps_seen += 1;
        }
        *new = (cluster_map[c as usize], comp_map[m as usize]);
    }
    let open = open as usize;
    let mut traits = [(0u8, 0u8); 64];
    let mut reach = [0u64; 64];
    let mut rep = [0u32; 64];
    for c in 0..k {
        let to = cluster_map[c] as usize;
        if to == u8::MAX as usize {
            continue;
        }
        traits[to] = s.traits[c];
        rep[to] = s.rep[c];
        let mut r = 0u64;
        for (d, &to) in cluster_map[..k].iter().enumerate() {
            if s.reach[c] >> d & 1 == 1 && to != u8::MAX {
                r |= 1 << to;
            }
        }
        reach[to] = r;
    }
    s.slot.clear();
    s.slot.extend_from_slice(&slot[..kept.len()]);
    s.traits.clear();
    s.traits.extend_from_slice(&traits[..open]);
    s.reach.clear();
    s.reach.extend_from_slice(&reach[..open]);
    s.rep.clear();
    s.rep.extend_from_slice(&rep[..open]);
    s.family.clear();
    s.family.extend(
        plan.families[v]
            .iter()
            .map(|&f| family.get(f).unwrap_or(UNKNOWN)),
    );
    Some(true)
}
