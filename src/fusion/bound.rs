//! Lower bounds on the traffic still to come, for the branch and bound
//! inside the frontier dynamic program (`frontier.rs`): a fusion graph in,
//! per point of program order the bytes that every completion of every
//! partial clustering must still add (`rest`), and the writes whose
//! charge depends on the state (`pending`), out.
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
//! - an array whose producer is decided and one of whose later readers is
//!   apart from it is written, charged at its first reader outside the
//!   producer's cluster: while every reader decided so far shares the
//!   producer's cluster, the write is still to come (`pending`).
//!
//! Every term counts a charge `frontier` makes at a later statement, once.

use super::graph::FusionGraph;
use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;

/// A write still to come while the producer's cluster holds every reader
/// decided so far (positions on the frontier after the point).
pub struct Pending {
    pub bytes: f64,
    pub producer: usize,
    pub readers: Vec<usize>,
}

pub struct Bound {
    /// Per point: bytes every completion adds, whatever the state.
    pub rest: Vec<f64>,
    /// Per point: the writes that the state may still owe.
    pub pending: Vec<Vec<Pending>>,
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

/// Which pairs of statements are apart (`apart.get(u, w)` for `u < w`).
fn apart_pairs(graph: &FusionGraph) -> Bits {
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
    apart
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
    let apart = apart_pairs(graph);
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
    let mut pending: Vec<Vec<Pending>> = (0..n).map(|_| Vec::new()).collect();
    for &(bytes, producer, readers, always) in arrays {
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
            let reads = bytes * pairwise_apart(&free, &apart) as f64;
            if i == 0 {
                first = reads;
            } else {
                add(readers[i - 1], readers[i], reads);
            }
        }
        // The write, when a reader is apart from the producer.
        let written = producer.and_then(|p| {
            let last_apart = *readers.iter().rev().find(|&&r| apart_of(p, r))?;
            (!always).then_some((p, last_apart))
        });
        if written.is_some() {
            first += bytes;
        }
        add(0, readers[0], first.max(bytes * whole as f64));
        let Some((p, last_apart)) = written else {
            continue;
        };
        for t in readers[0]..last_apart {
            let position = |u: usize| active[t].iter().position(|&a| a == u);
            let decided = readers.iter().take_while(|&&r| r <= t);
            let (Some(producer), Some(readers)) = (
                position(p),
                decided
                    .map(|&r| position(r))
                    .collect::<Option<Vec<usize>>>(),
            ) else {
                continue;
            };
            pending[t].push(Pending {
                bytes,
                producer,
                readers,
            });
        }
    }
    let mut rest = Vec::with_capacity(n);
    let mut sum = 0.0;
    for d in delta.iter().take(n) {
        sum += d;
        rest.push(sum);
    }
    Bound { rest, pending }
}
