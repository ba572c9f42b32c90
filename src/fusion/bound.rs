//! Lower bounds on the traffic still to come, for the branch and bound
//! inside the frontier dynamic program (`frontier.rs`): a fusion graph in,
//! per point of program order the bytes that every completion of every
//! partial clustering must still add (`rest`), and the arrays whose
//! further charges depend on the state (`live`), out.
//!
//! Both rest on pairs of statements that no legal clustering puts in one
//! cluster (*apart*): a statement that is not a SOAC and any other, two
//! SOACs of conflicting fixed traits, two SOACs that no chain of fusible
//! edges and sibling pairs connects, and two statements joined by a path
//! through a preventing edge or through a statement apart from either
//! (a cluster holds every statement on a path between two of its members,
//! or the clusters would form a cycle). Then, after statement `t`:
//!
//! - an array whose producer comes after `t` and one of whose readers is
//!   apart from the producer will be written: its bytes are in `rest`;
//! - the later readers of an array that are apart from its producer and
//!   from every reader decided so far stream it in clusters that hold none
//!   of those, one read per cluster, and readers apart from each other are
//!   in different clusters: the bytes times the largest set of such readers
//!   pairwise apart are in `rest`;
//! - before an array's first reader, its producer and readers lie in at
//!   least as many clusters as it takes to cover them with sets holding
//!   no two statements apart: each but the producer's reads it, and with
//!   two or more it is written (`cover_number`);
//! - before the first reader of either of two arrays that share a
//!   statement, they cost together at least their least joint cost over
//!   the splits of their statements that no two apart share a part of and
//!   no two parts reach each other both ways (`least_joint`; disjoint
//!   pairs, `pairs`);
//! - from an array's first reader on, what it costs depends on the state
//!   (`live`): a later reader apart from some frontier member of every
//!   cluster holding the producer or a decided reader cannot share their
//!   read, so it reads in a cluster of its own, one read per cluster
//!   (readers pairwise apart: as many reads); and while every reader
//!   decided so far shares the producer's cluster, the write is still to
//!   come when a later reader cannot join that cluster.
//!
//! Every term counts a charge `frontier` makes at a later statement, once.

use super::graph::FusionGraph;
use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;

/// An array between its first reader and its last, as seen from one point
/// (positions are on the frontier after the point).
pub struct Live {
    pub bytes: f64,
    /// The producer's position, when its write depends on the clustering.
    pub producer: Option<usize>,
    /// The positions of the producer and of the readers decided so far.
    pub decided: Vec<usize>,
    /// Per later reader: the frontier positions apart from it.
    pub later: Vec<u128>,
    /// Per later reader: the later readers apart from it (bits).
    pub later_apart: Vec<u64>,
    /// The reads `rest` already counts for it at this point.
    pub counted: usize,
}

pub struct Bound {
    /// Per point: bytes every completion adds, whatever the state.
    pub rest: Vec<f64>,
    /// Per point: the arrays whose further cost depends on the state.
    pub live: Vec<Vec<Live>>,
    /// Per point: the most those arrays can add to `rest`.
    pub live_most: Vec<f64>,
}

/// Bit sets of statements.
struct Bits {
    words: usize,
    data: Vec<u64>,
}

impl Bits {
    fn new(rows: usize, cols: usize) -> Bits {
        let words = cols.div_ceil(64);
        Bits {
            words,
            data: vec![0; rows * words],
        }
    }

    fn get(&self, r: usize, c: usize) -> bool {
        self.data[r * self.words + c / 64] >> (c % 64) & 1 == 1
    }

    fn set(&mut self, r: usize, c: usize) {
        self.data[r * self.words + c / 64] |= 1 << (c % 64);
    }

    /// Row `r` |= row `s`.
    fn or_row(&mut self, r: usize, s: usize) {
        for i in 0..self.words {
            self.data[r * self.words + i] |= self.data[s * self.words + i];
        }
    }
}

/// Which pairs of statements are apart, and which statements reach which
/// (`get(u, w)` for `u < w` in both).
fn apart_pairs(graph: &FusionGraph) -> (Bits, Bits) {
    let g = &graph.graph;
    let n = g.node_count();
    let soac = |v: usize| g[NodeIndex::new(v)].soac.as_ref();
    let mut sets = petgraph::unionfind::UnionFind::<usize>::new(n);
    for e in g.edge_references() {
        if e.weight().fusible {
            sets.union(e.source().index(), e.target().index());
        }
    }
    for s in &graph.siblings {
        sets.union(s.a.index(), s.b.index());
    }
    let component: Vec<usize> = (0..n).map(|v| sets.find_mut(v)).collect();
    let direct = |u: usize, w: usize| match (soac(u), soac(w)) {
        (Some(a), Some(b)) => a.conflicts_with(b) || component[u] != component[w],
        _ => true,
    };
    let mut incoming: Vec<Vec<(usize, bool)>> = vec![Vec::new(); n];
    for e in g.edge_references() {
        incoming[e.target().index()].push((e.source().index(), e.weight().fusible));
    }
    // Statements reachable from each one (edges run forward in program
    // order; `frontier` gives up otherwise, and so does this bound).
    let mut reach = Bits::new(n, n);
    for u in (0..n).rev() {
        for e in g.edges(NodeIndex::new(u)) {
            let x = e.target().index();
            if x > u {
                reach.set(u, x);
                reach.or_row(u, x);
            }
        }
    }
    let mut apart = Bits::new(n, n);
    for u in (0..n).rev() {
        for (w, into) in incoming.iter().enumerate().skip(u + 1) {
            let through = reach.get(u, w)
                && into.iter().any(|&(x, fusible)| {
                    (x == u || (x > u && reach.get(u, x)))
                        && (!fusible || (x != u && (apart.get(u, x) || apart.get(x, w))))
                });
            if through || direct(u, w) {
                apart.set(u, w);
            }
        }
    }
    (apart, reach)
}

/// The most statements of `set` that are pairwise apart (exact for small
/// sets, greedy beyond: a lower bound either way).
fn pairwise_apart(set: &[usize], apart: &Bits) -> usize {
    let apart_of = |a: usize, b: usize| apart.get(a.min(b), a.max(b));
    if set.len() > 16 {
        let mut chosen: Vec<usize> = Vec::new();
        for &v in set {
            if chosen.iter().all(|&c| apart_of(c, v)) {
                chosen.push(v);
            }
        }
        return chosen.len();
    }
    let k = set.len();
    let mut conflicts = vec![0u32; k];
    for i in 0..k {
        for j in 0..k {
            if i != j && apart_of(set[i], set[j]) {
                conflicts[i] |= 1 << j;
            }
        }
    }
    fn grow(candidates: u32, size: usize, conflicts: &[u32], best: &mut usize) {
        if candidates == 0 {
            *best = (*best).max(size);
            return;
        }
        if size + candidates.count_ones() as usize <= *best {
            return;
        }
        let i = candidates.trailing_zeros() as usize;
        grow(candidates & conflicts[i], size + 1, conflicts, best);
        grow(candidates & !(1 << i), size, conflicts, best);
    }
    let mut best = 0;
    grow((1u32 << k) - 1, 0, &conflicts, &mut best);
    best
}

/// Arrays charged together before the first reader of either: each array
/// with readers is paired, in order of first readers, with the unpaired
/// array sharing a statement with it whose joint least cost
/// (`least_joint`) exceeds their separate charges most, if any does;
/// the others stand alone (charged by `least_joint` too). Disjoint
/// groups of arrays bound disjoint charges, so their sum stays
/// admissible. Each group comes with the first point from which its
/// joint term stops counting.
fn pairs(
    arrays: &[(f64, Option<usize>, &[usize], bool)],
    firsts: &[Option<(usize, f64)>],
    apart: &Bits,
    reach: &Bits,
) -> Vec<(Vec<usize>, usize)> {
    let members = |a: usize| -> Vec<usize> {
        let mut m: Vec<usize> = arrays[a].1.iter().chain(arrays[a].2).copied().collect();
        m.sort_unstable();
        m.dedup();
        m
    };
    let mut by_statement: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for (a, first) in firsts.iter().enumerate() {
        if first.is_some() {
            for v in members(a) {
                by_statement.entry(v).or_default().push(a);
            }
        }
    }
    let mut order: Vec<usize> = (0..arrays.len()).filter(|&a| firsts[a].is_some()).collect();
    order.sort_by_key(|&a| (firsts[a].map_or(0, |f| f.0), a));
    let mut paired = vec![false; arrays.len()];
    let mut groups = Vec::new();
    for &a in &order {
        if paired[a] {
            continue;
        }
        let mine = members(a);
        let mut partners: Vec<usize> = mine
            .iter()
            .flat_map(|v| by_statement[v].iter().copied())
            .filter(|&b| b != a && !paired[b])
            .collect();
        partners.sort_unstable();
        partners.dedup();
        let mut best: Option<(f64, usize)> = None;
        for b in partners {
            let mut both = mine.clone();
            both.extend(members(b));
            both.sort_unstable();
            both.dedup();
            if both.len() > JOINT_STATEMENTS {
                continue;
            }
            let alone = firsts[a].map_or(0.0, |f| f.1) + firsts[b].map_or(0.0, |f| f.1);
            let gain = least_joint(&[arrays[a], arrays[b]], apart, reach) - alone;
            if gain > 0.0 && best.is_none_or(|(g, _)| gain > g) {
                best = Some((gain, b));
            }
        }
        if let Some((_, b)) = best {
            paired[a] = true;
            paired[b] = true;
            let start = firsts[a]
                .map_or(0, |f| f.0)
                .min(firsts[b].map_or(0, |f| f.0));
            groups.push((vec![a, b], start));
        } else {
            paired[a] = true;
            groups.push((vec![a], firsts[a].map_or(0, |f| f.0)));
        }
    }
    groups
}

/// The most statements a pair of arrays may hold for `least_joint`
/// (partitions of 8 statements: 4,140).
const JOINT_STATEMENTS: usize = 8;

/// The least bytes that the arrays `terms` (bytes, producer, readers,
/// always written) cost together over the ways of splitting their
/// statements into clusters with no two statements of one apart and no
/// two clusters reaching each other both ways: every legal clustering
/// splits them so, so this is at most what they cost in it. The write of
/// an array always written is left out (charged at its producer).
fn least_joint(terms: &[(f64, Option<usize>, &[usize], bool)], apart: &Bits, reach: &Bits) -> f64 {
    let mut set: Vec<usize> = terms
        .iter()
        .flat_map(|t| t.1.iter().chain(t.2).copied())
        .collect();
    set.sort_unstable();
    set.dedup();
    let k = set.len();
    if k > JOINT_STATEMENTS {
        return 0.0;
    }
    let at = |v: usize| set.binary_search(&v).unwrap_or(0);
    let pair = |bits: &Bits, i: usize, j: usize| bits.get(set[i.min(j)], set[i.max(j)]);
    let mut conflicts = vec![0u32; k];
    let mut reaches = vec![0u32; k];
    for i in 0..k {
        for j in 0..k {
            if i != j && pair(apart, i, j) {
                conflicts[i] |= 1 << j;
            }
            if i < j && reach.get(set[i], set[j]) {
                reaches[i] |= 1 << j;
            }
        }
    }
    struct Search<'a> {
        terms: &'a [(f64, Option<usize>, &'a [usize], bool)],
        homes: Vec<Option<usize>>,
        readers: Vec<Vec<usize>>,
        conflicts: Vec<u32>,
        reaches: Vec<u32>,
        part: Vec<usize>,
        best: f64,
    }
    impl Search<'_> {
        fn grow(&mut self, i: usize, parts: usize) {
            let k = self.part.len();
            if i == k {
                self.finish(parts);
                return;
            }
            for p in 0..=parts {
                let clash = (0..i).any(|j| self.part[j] == p && self.conflicts[i] >> j & 1 == 1);
                if !clash {
                    self.part[i] = p;
                    self.grow(i + 1, parts.max(p + 1));
                }
            }
        }

        fn finish(&mut self, parts: usize) {
            // Parts reaching each other, closed transitively: a cycle
            // among them is a cycle among the clusters holding them.
            let mut reach = vec![0u32; parts];
            for (i, &r) in self.reaches.iter().enumerate() {
                for j in 0..self.part.len() {
                    if r >> j & 1 == 1 && self.part[i] != self.part[j] {
                        reach[self.part[i]] |= 1 << self.part[j];
                    }
                }
            }
            for m in 0..parts {
                for p in 0..parts {
                    if reach[p] >> m & 1 == 1 {
                        reach[p] |= reach[m];
                    }
                }
            }
            if (0..parts).any(|p| reach[p] >> p & 1 == 1) {
                return;
            }
            let mut cost = 0.0;
            for (t, term) in self.terms.iter().enumerate() {
                let home = self.homes[t].map(|h| self.part[h]);
                let outside: u32 = self.readers[t]
                    .iter()
                    .map(|&r| self.part[r])
                    .filter(|&p| Some(p) != home)
                    .fold(0, |m, p| m | 1 << p);
                let written = home.is_some() && !term.3 && outside != 0;
                cost += term.0 * (outside.count_ones() as f64 + f64::from(u8::from(written)));
            }
            self.best = self.best.min(cost);
        }
    }
    let mut search = Search {
        terms,
        homes: terms.iter().map(|t| t.1.map(at)).collect(),
        readers: terms
            .iter()
            .map(|t| t.2.iter().map(|&r| at(r)).collect())
            .collect(),
        conflicts,
        reaches,
        part: vec![0; k],
        best: f64::INFINITY,
    };
    search.grow(0, 0);
    if search.best.is_finite() {
        search.best
    } else {
        0.0
    }
}

/// The fewest sets, no two statements of a set apart, that cover `set`
/// (the chromatic number of the apart relation on it): exact up to 16
/// statements, the most pairwise apart (a lower bound) beyond.
fn cover_number(set: &[usize], apart: &Bits) -> usize {
    let k = set.len();
    if k > 16 {
        return pairwise_apart(set, apart);
    }
    let mut conflicts = vec![0u32; k];
    for i in 0..k {
        for j in 0..k {
            if i != j && apart.get(set[i].min(set[j]), set[i].max(set[j])) {
                conflicts[i] |= 1 << j;
            }
        }
    }
    // Whether statements `i..` fit in `colours` (bit sets of statements).
    fn colour(i: usize, colours: &mut [u32], conflicts: &[u32]) -> bool {
        if i == conflicts.len() {
            return true;
        }
        for c in 0..colours.len() {
            let empty = colours[c] == 0;
            if colours[c] & conflicts[i] == 0 {
                colours[c] |= 1 << i;
                if colour(i + 1, colours, conflicts) {
                    return true;
                }
                colours[c] &= !(1 << i);
            }
            // Empty colours are interchangeable: one is enough to try.
            if empty {
                break;
            }
        }
        false
    }
    let mut least = pairwise_apart(set, apart).max(1);
    while least < k && !colour(0, &mut vec![0; least], &conflicts) {
        least += 1;
    }
    least.min(k)
}

/// The bounds for `graph`, whose frontier after each statement is
/// `active` and whose arrays are `(bytes, producer, sorted readers,
/// always written)`; `always` is the bytes written at each statement
/// whatever the clustering.
pub fn bound(
    graph: &FusionGraph,
    active: &[Vec<usize>],
    arrays: &[(f64, Option<usize>, &[usize], bool)],
    always: &[f64],
) -> Bound {
    let n = active.len();
    let (apart, reach) = apart_pairs(graph);
    let apart_of = |a: usize, b: usize| apart.get(a.min(b), a.max(b));
    // `rest` as differences: `delta[t]` is added to every point from `t` on.
    let mut delta = vec![0.0; n + 1];
    let mut add = |from: usize, to: usize, bytes: f64| {
        if from < to {
            delta[from] += bytes;
            delta[to] -= bytes;
        }
    };
    for (v, &bytes) in always.iter().enumerate() {
        add(0, v, bytes);
    }
    let mut live: Vec<Vec<Live>> = (0..n).map(|_| Vec::new()).collect();
    // Per array with readers: its first reader and what every completion
    // adds before it (charged below, alone or with a partner's).
    let mut firsts: Vec<Option<(usize, f64)>> = vec![None; arrays.len()];
    for (index, &(bytes, producer, readers, always)) in arrays.iter().enumerate() {
        if readers.is_empty() {
            continue;
        }
        // Before the first reader every charge of the array is still to
        // come: its producer and readers fall into at least as many
        // clusters as it takes to cover them with sets of statements no two
        // of which are apart. Each cluster but the producer's reads the
        // array, and with two or more the array is written (once, unless
        // it is written anyway). This covers the terms below for these
        // points, which see only readers apart from the producer.
        let members: Vec<usize> = producer.iter().chain(readers).copied().collect();
        let parts = cover_number(&members, &apart);
        let whole = match producer {
            None => parts,
            Some(_) if parts < 2 => 0,
            Some(_) if always => parts - 1,
            Some(_) => parts,
        };
        let mut first = 0.0;
        // Reads, at the points from reader `i - 1` (from the start for
        // `i = 0`) up to reader `i`: the readers from `i` on that are apart
        // from the producer and from every reader before `i`.
        let mut counted = Vec::with_capacity(readers.len());
        for i in 0..readers.len() {
            let (decided, later) = readers.split_at(i);
            let free: Vec<usize> = later
                .iter()
                .copied()
                .filter(|&r| {
                    producer.is_none_or(|p| apart_of(p, r))
                        && decided.iter().all(|&d| apart_of(d, r))
                })
                .collect();
            let most = pairwise_apart(&free, &apart);
            counted.push(most);
            let reads = bytes * most as f64;
            if i == 0 {
                first = reads;
            } else {
                add(readers[i - 1], readers[i], reads);
            }
        }
        // The write, when a reader is apart from the producer.
        let written = producer.is_some_and(|p| !always && readers.iter().any(|&r| apart_of(p, r)));
        if written {
            first += bytes;
        }
        firsts[index] = Some((readers[0], first.max(bytes * whole as f64)));
        // From the first reader to the last, the state decides the rest.
        for t in readers[0]..*readers.last().unwrap_or(&0) {
            let position = |u: usize| active[t].iter().position(|&a| a == u);
            let i = readers.partition_point(|&r| r <= t);
            let (decided, later) = readers.split_at(i);
            if later.len() > 64 {
                continue;
            }
            let Some(decided) = producer
                .iter()
                .chain(decided)
                .map(|&u| position(u))
                .collect::<Option<Vec<usize>>>()
            else {
                continue;
            };
            let apart_from = |r: usize| {
                active[t]
                    .iter()
                    .enumerate()
                    .take(128)
                    .filter(|&(_, &u)| apart_of(u, r))
                    .fold(0u128, |m, (k, _)| m | 1 << k)
            };
            live[t].push(Live {
                bytes,
                producer: producer.filter(|_| !always).and_then(position),
                decided,
                later: later.iter().map(|&r| apart_from(r)).collect(),
                later_apart: later
                    .iter()
                    .map(|&r| {
                        later
                            .iter()
                            .enumerate()
                            .filter(|&(_, &q)| q != r && apart_of(q, r))
                            .fold(0u64, |m, (k, _)| m | 1 << k)
                    })
                    .collect(),
                counted: counted[i],
            });
        }
    }
    for (members, start) in pairs(arrays, &firsts, &apart, &reach) {
        let alone: f64 = members
            .iter()
            .map(|&a| firsts[a].map_or(0.0, |f| f.1))
            .sum();
        let together = least_joint(
            &members.iter().map(|&a| arrays[a]).collect::<Vec<_>>(),
            &apart,
            &reach,
        );
        add(0, start, together.max(alone));
        for &a in &members {
            if let Some((first, bytes)) = firsts[a] {
                add(start, first, bytes);
            }
        }
    }
    let mut rest = Vec::with_capacity(n);
    let mut sum = 0.0;
    for d in delta.iter().take(n) {
        sum += d;
        rest.push(sum);
    }
    let live_most = live
        .iter()
        .map(|arrays| {
            arrays
                .iter()
                .map(|a| {
                    let reads = a.later.len().saturating_sub(a.counted);
                    a.bytes * (reads + usize::from(a.producer.is_some())) as f64
                })
                .sum()
        })
        .collect();
    Bound {
        rest,
        live,
        live_most,
    }
}
