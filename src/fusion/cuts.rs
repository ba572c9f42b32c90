//! Valid inequalities over the ILP's pair variables (`x` = 0: the pair
//! shares a loop), added to tighten its relaxation. Cluster numbers with
//! big-M constraints exclude every illegal clustering, but their relaxation
//! barely does: a fractional `x` of `1/M` lets two clusters that would form
//! a cycle share most of a number. These rows state the commonest such
//! cycles directly; no legal clustering violates them, so the optimum is
//! unchanged.
//!
//! - **Conflicts**: pairs `p` and `q` such that `q` can be reached from `p`
//!   by a path with a preventing edge and `p` from `q` by any path (or a
//!   shared statement). Fusing both would put `p`'s cluster on both sides
//!   of a preventing edge: `x_p + x_q >= 1`.
//! - **Triangles**: candidate pairs `{a,b}`, `{b,c}`, `{a,c}`: fusing two
//!   puts all three in one cluster, so `x_ac <= x_ab + x_bc`. (When `{a,c}`
//!   is a sibling pair the model would allow `x_ac = 1` inside one cluster,
//!   but `x_ac = 0` is as cheap there, so no optimum is lost.)

use super::ilp::Structure;

/// The candidate pairs (indices into `pairs`) that cannot both be fused.
pub(super) fn conflicts(s: &Structure, pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut position = vec![0; s.order.len()];
    for (i, &v) in s.order.iter().enumerate() {
        position[v] = i;
    }
    // Pairs by their first statement; a cycle through two pairs needs their
    // spans in program order to overlap.
    let span = |&(a, b): &(usize, usize)| {
        let (pa, pb) = (position[a], position[b]);
        (pa.min(pb), pa.max(pb))
    };
    let mut by_start: Vec<usize> = (0..pairs.len()).collect();
    by_start.sort_by_key(|&i| span(&pairs[i]));
    let links = |from: (usize, usize), to: (usize, usize), apart: bool| {
        [from.0, from.1].iter().any(|&u| {
            [to.0, to.1].iter().any(|&v| {
                if apart {
                    s.reaches_apart(u, v)
                } else {
                    u == v || s.reaches(u, v)
                }
            })
        })
    };
    let mut found = Vec::new();
    for (k, &i) in by_start.iter().enumerate() {
        let (_, end) = span(&pairs[i]);
        for &j in by_start[k + 1..].iter() {
            if span(&pairs[j]).0 > end {
                break;
            }
            let (p, q) = (pairs[i], pairs[j]);
            if (links(p, q, true) && links(q, p, false))
                || (links(q, p, true) && links(p, q, false))
            {
                found.push((i.min(j), i.max(j)));
            }
        }
    }
    found
}

/// Triples of candidate pairs `(ab, bc, ac)` (indices into `pairs`) that
/// close a triangle, each way round.
pub(super) fn triangles(n: usize, pairs: &[(usize, usize)]) -> Vec<(usize, usize, usize)> {
    let mut index = std::collections::HashMap::new();
    let mut neighbours: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
    for (i, &(a, b)) in pairs.iter().enumerate() {
        index.insert((a.min(b), a.max(b)), i);
        neighbours[a].push((b, i));
        neighbours[b].push((a, i));
    }
    let mut found = Vec::new();
    for (b, around) in neighbours.iter().enumerate() {
        for (k, &(a, ab)) in around.iter().enumerate() {
            for &(c, bc) in &around[k + 1..] {
                if let Some(&ac) = index.get(&(a.min(c), a.max(c))) {
                    // Each triangle once: seen from its middle-numbered corner.
                    if a.min(c) < b && b < a.max(c) {
                        found.push((ab, bc, ac));
                        found.push((ab, ac, bc));
                        found.push((bc, ac, ab));
                    }
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fusion::{graph, ilp, sizes};
    use std::path::Path;

    /// The first example of docs/fusion.md: fusing `{a1, b2}` (they read
    /// `xs`) and `{b1, a2}` (they read `ys`) would close a cycle through the
    /// preventing edges `a1 -> a2` and `b1 -> b2`, and the cut says so; the
    /// optimum, which fuses one of the two, satisfies every cut.
    #[test]
    fn horizontal_levels_conflict() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fusion/horizontal_levels.arr");
        let program = crate::driver::pipeline::lowered(&path).expect("compiles");
        let program = crate::driver::pipeline::simplify(program, &Default::default())
            .unwrap_or_else(|e| panic!("{}", e.render()));
        let f = &program.entries[0];
        let g = graph::build(&f.params, &sizes::forward_sizes(&f.body));
        let s = ilp::structure(&g);
        let pairs: Vec<(usize, usize)> = ilp::candidate_pairs(&g, &s).into_keys().collect();
        let siblings: Vec<usize> = (0..pairs.len())
            .filter(|&i| {
                g.siblings.iter().any(|sib| {
                    let (a, b) = (sib.a.index(), sib.b.index());
                    pairs[i] == (a, b) || pairs[i] == (b, a)
                })
            })
            .collect();
        assert_eq!(siblings.len(), 2, "{pairs:?}");
        let found = conflicts(&s, &pairs);
        assert!(found.contains(&(siblings[0], siblings[1])), "{found:?}");
        // The optimum fuses one sibling pair: it satisfies every conflict.
        let best = crate::fusion::exhaustive::minimum(&g);
        let apart = |i: usize| best.cluster[pairs[i].0] != best.cluster[pairs[i].1];
        assert!(siblings.iter().any(|&i| !apart(i)));
        for (i, j) in found {
            assert!(apart(i) || apart(j));
        }
        for (ab, bc, ac) in triangles(g.graph.node_count(), &pairs) {
            assert!(!apart(ac) || apart(ab) || apart(bc));
        }
    }
}
