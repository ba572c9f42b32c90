//! The `loopy-hists` pass: a map of histograms over the same points, one
//! per column (k-means' sums per centre, `tabulate d (\j -> hist (+) 0 k
//! labels (map (\p -> p[j]) points))`), becomes one histogram whose
//! iteration updates every column: a `loopy::ir::Function` in, the same out
//! with such nests rewritten.
//!
//! In (`h` private to the column, `sums: [d][k]` made before):
//!
//! ```text
//! loop map j < d
//!   C                        -- checks of sizes made outside
//!   alloc h [k]
//!   loop map c < k: h[c] = ne
//!   loop hist i < n (bins h)
//!     B                      -- reads of i and j, updates of h[x]
//!   copy sums[j] = h
//!   free h
//! ```
//!
//! Out:
//!
//! ```text
//! if 0 < d then C
//! view flat = sums[+0; d * k]
//! loop map t < d * k: flat[t] = ne
//! loop hist i < n (bins flat)
//!   B's statements that depend neither on j nor on h
//!   for j < d: the rest of B, updating flat[j * k + x] for h[x]
//! ```
//!
//! Why: the map runs its `d` histograms one after the other, each a pass
//! over the points and the labels; the histogram of `d * k` bins reads them
//! once. Each bin still takes its values in the order of `i`, in chunks cut
//! by the same width, so the sums are the same. Only a `B` that cannot fail
//! is rewritten (its reads proven in range, no division), since running the
//! columns point by point changes which update comes first; and only where
//! `B` writes nothing but `h`.

use super::block::{let_bin, var};
use super::ir::{
    block_vars, Block, Function, HistState, LoopNest, Parallelism, ScalarExp, SeqForm, SeqLoop,
    Stmt,
};
use super::rename::{fresh_above, Fresh, NameSource};
use crate::core::ir::{Atom, BinOp, Type, Var, VarId};
use crate::types::ScalarType;
use std::collections::{BTreeSet, HashMap, HashSet};

/// Rewrites every map of column histograms in `f` (see the module comment).
pub fn merge_column_hists(f: &mut Function) {
    let mut edges = HashMap::new();
    super::inplace::alias_edges(&f.body, &mut edges);
    let mut fresh = fresh_above(f);
    super::block::rewrite_nests(&mut f.body, &mut fresh, &|o, fresh| {
        merged(o, &edges, fresh)
    });
}

/// The parts of a map of column histograms.
struct Columns<'a> {
    /// Checks of sizes made outside the map, which each column runs first.
    checks: &'a [Stmt],
    /// The bins of one column, `[k]`.
    h: VarId,
    k: &'a Atom,
    /// What the bins start as.
    ne: &'a Atom,
    /// The histogram over the points.
    hist: &'a LoopNest,
    /// The `[d][k]` result.
    sums: VarId,
}

fn columns(o: &LoopNest) -> Option<Columns<'_>> {
    let carries = !o.reductions.is_empty()
        || !o.scans.is_empty()
        || !o.compactions.is_empty()
        || !o.hists.is_empty()
        || !o.scatters.is_empty();
    if carries || o.par != Parallelism::Map {
        return None;
    }
    let checks = o.body.iter().take_while(|s| check(s)).count();
    let [Stmt::Alloc { var: h, shape, .. }, Stmt::Loop(init), Stmt::Loop(hist), Stmt::Copy {
        array: sums,
        index,
        src,
    }, Stmt::Free(freed)] = &o.body[checks..]
    else {
        return None;
    };
    let [k] = &shape[..] else {
        return None;
    };
    let j = Atom::Var(o.index.id);
    if *src != h.id || *freed != h.id || index[..] != [j] || *sums == h.id {
        return None;
    }
    // Made outside the map: the bins' size and what they start as.
    let mut inside = HashSet::new();
    block_vars(&o.body, &mut BTreeSet::new(), &mut inside);
    inside.insert(o.index.id);
    let outside = |a: &Atom| !matches!(a, Atom::Var(v) if inside.contains(v));
    let mut check_uses = BTreeSet::new();
    block_vars(&o.body[..checks], &mut check_uses, &mut HashSet::new());
    if check_uses.iter().any(|v| inside.contains(v)) {
        return None;
    }
    let ne = filled(init, h.id, k)?;
    if !outside(k) || !outside(ne) || !outside(&hist.width) {
        return None;
    }
    let hist_only = hist.par == Parallelism::Hist
        && hist.reductions.is_empty()
        && hist.scans.is_empty()
        && hist.compactions.is_empty()
        && hist.scatters.is_empty()
        && matches!(&hist.hists[..], [HistState { bins, .. }] if bins[..] == [h.id]);
    (hist_only && updates_only(&hist.body, h.id)).then_some(Columns {
        checks: &o.body[..checks],
        h: h.id,
        k,
        ne,
        hist,
        sums: *sums,
    })
}

/// A check that the map's body runs before its bins: of sizes or
/// conditions, which fail or not alike in every column.
fn check(stmt: &Stmt) -> bool {
    matches!(
        stmt,
        Stmt::AssertEq { .. } | Stmt::Assert { .. } | Stmt::SizeCheck { .. }
    )
}

/// The value `init` fills all `k` elements of `h` with, if it does only that.
fn filled<'a>(init: &'a LoopNest, h: VarId, k: &Atom) -> Option<&'a Atom> {
    let plain = init.par == Parallelism::Map && init.carried().next().is_none();
    match &init.body[..] {
        [Stmt::Write {
            array,
            index,
            value,
        }] if plain
            && *array == h
            && init.width == *k
            && index[..] == [Atom::Var(init.index.id)]
            && !matches!(value, Atom::Var(v) if *v == init.index.id) =>
        {
            Some(value)
        }
        _ => None,
    }
}

/// Whether `block` cannot fail, allocates nothing, runs no nest, and uses
/// `h` only in reads and writes of one element.
fn updates_only(block: &[Stmt], h: VarId) -> bool {
    block.iter().all(|stmt| match stmt {
        Stmt::Let { exp, .. } => !exp.may_fail(),
        Stmt::Read { check, .. } | Stmt::Row { check, .. } => check.is_none(),
        Stmt::Write { array, .. } => *array == h,
        Stmt::If {
            cond,
            then_block,
            then_results,
            else_block,
            else_results,
            ..
        } => {
            let h_atom = |a: &Atom| matches!(a, Atom::Var(v) if *v == h);
            !h_atom(cond)
                && !then_results.iter().chain(else_results).any(h_atom)
                && updates_only(then_block, h)
                && updates_only(else_block, h)
        }
        _ => false,
    }) && !block.iter().any(|stmt| match stmt {
        // `h` as a row, or as an operand of a let, would escape the rewrite.
        Stmt::Row { array, .. } => *array == h,
        Stmt::Let { .. } => {
            let mut uses = BTreeSet::new();
            block_vars(std::slice::from_ref(stmt), &mut uses, &mut HashSet::new());
            uses.contains(&h)
        }
        _ => false,
    })
}

/// The rewritten form of `o`, if it is a map of column histograms.
fn merged(
    o: &LoopNest,
    edges: &HashMap<VarId, Vec<VarId>>,
    fresh: &mut Fresh,
) -> Option<Vec<Stmt>> {
    let c = columns(o)?;
    // The result is filled before the points are read, not after: nothing
    // the histogram reads may share its memory.
    let mut read = HashSet::new();
    super::jam::reads(&c.hist.body, &mut read);
    if super::jam::sharing(&HashSet::from([c.sums]), edges)
        .iter()
        .any(|a| read.contains(a))
    {
        return None;
    }
    let i64t = Type::Scalar(ScalarType::I64);
    let mut out = Vec::new();
    if !c.checks.is_empty() {
        // Once, where the map would run them: only when it has a column.
        let some = fresh.fresh_var("some_column", Type::Scalar(ScalarType::Bool));
        let_bin(&mut out, &some, BinOp::Lt, super::block::i64c(0), o.width);
        out.push(Stmt::If {
            results: Vec::new(),
            cond: var(&some),
            then_block: c.checks.to_vec(),
            then_results: Vec::new(),
            else_block: Vec::new(),
            else_results: Vec::new(),
        });
    }
    let cells = fresh.fresh_var("cells", i64t);
    let_bin(&mut out, &cells, BinOp::Mul, o.width, *c.k);
    let elem = match o.body.get(c.checks.len()) {
        Some(Stmt::Alloc { var, .. }) => var.ty,
        _ => return None,
    };
    let flat = fresh.fresh_var("flat", elem);
    out.push(Stmt::View {
        var: flat.clone(),
        array: c.sums,
        offset: super::block::i64c(0),
        shape: vec![var(&cells)],
    });
    let t = fresh.fresh_var("cell", i64t);
    out.push(Stmt::Loop(LoopNest {
        origin: o.origin,
        par: Parallelism::Map,
        index: t.clone(),
        width: var(&cells),
        reductions: Vec::new(),
        scans: Vec::new(),
        compactions: Vec::new(),
        hists: Vec::new(),
        scatters: Vec::new(),
        body: vec![Stmt::Write {
            array: flat.id,
            index: vec![var(&t)],
            value: *c.ne,
        }],
        launch: o.launch,
        plan: None,
    }));

    // The statements of B that neither column nor bins change run once
    // per point, the rest once per column.
    let mut per_column = HashSet::from([o.index.id, c.h]);
    let mut once = Vec::new();
    let mut columns_body = Vec::new();
    for stmt in &c.hist.body {
        let mut uses = BTreeSet::new();
        let mut defs = HashSet::new();
        block_vars(std::slice::from_ref(stmt), &mut uses, &mut defs);
        let hoistable = matches!(
            stmt,
            Stmt::Let { .. } | Stmt::Read { .. } | Stmt::Row { .. }
        );
        if hoistable && uses.iter().all(|v| !per_column.contains(v)) {
            once.push(stmt.clone());
        } else {
            per_column.extend(defs);
            columns_body.push(stmt.clone());
        }
    }
    let base = fresh.fresh_var("column_base", i64t);
    let mut body = Vec::new();
    let_bin(&mut body, &base, BinOp::Mul, var(&o.index), *c.k);
    body.extend(redirected(columns_body, c.h, flat.id, &base, fresh));
    once.push(Stmt::SeqLoop(SeqLoop {
        params: Vec::new(),
        form: SeqForm::For {
            index: o.index.clone(),
            bound: o.width,
        },
        body,
        next: Vec::new(),
        results: Vec::new(),
    }));
    let mut hist = c.hist.clone();
    hist.hists[0].bins = vec![flat.id];
    hist.body = once;
    hist.plan = None;
    out.push(Stmt::Loop(hist));
    Some(out)
}

/// `block` with every element `h[x]` read or written as `flat[base + x]`.
fn redirected(block: Block, h: VarId, flat: VarId, base: &Var, fresh: &mut Fresh) -> Block {
    let mut out = Vec::new();
    let at = |index: Vec<Atom>, fresh: &mut Fresh, out: &mut Block| -> Vec<Atom> {
        let cell = fresh.fresh_var("cell_at", Type::Scalar(ScalarType::I64));
        out.push(Stmt::Let {
            var: cell.clone(),
            exp: ScalarExp::BinOp(BinOp::Add, var(base), index[0]),
            loc: super::block::loc0(),
        });
        vec![var(&cell)]
    };
    for stmt in block {
        match stmt {
            Stmt::Read {
                var: v,
                array,
                index,
                check,
            } if array == h => {
                let index = at(index, fresh, &mut out);
                out.push(Stmt::Read {
                    var: v,
                    array: flat,
                    index,
                    check,
                });
            }
            Stmt::Write {
                array,
                index,
                value,
            } if array == h => {
                let index = at(index, fresh, &mut out);
                out.push(Stmt::Write {
                    array: flat,
                    index,
                    value,
                });
            }
            Stmt::If {
                results,
                cond,
                then_block,
                then_results,
                else_block,
                else_results,
            } => out.push(Stmt::If {
                results,
                cond,
                then_block: redirected(then_block, h, flat, base, fresh),
                then_results,
                else_block: redirected(else_block, h, flat, base, fresh),
                else_results,
            }),
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::loopy::tests::greedy_loop_nests_text as lowered;

    #[test]
    fn column_histograms_over_the_same_points_are_one_histogram() {
        let text = lowered(
            "entry main [n] [d] (k: i64) (ls: [n]i64) (ps: [n][d]f32) : [d][k]f64 =\n  \
             tabulate d (\\j -> hist (+) 0.0f64 k ls (map (\\p -> f64.f32 p[j]) ps))\n",
        );
        // One histogram over the points into a view of the result, the
        // columns a loop inside it; no bins per column.
        assert_eq!(text.matches("loop hist").count(), 1, "{text}");
        assert!(text.contains("hist (flat_"), "{text}");
        assert!(text.contains("seqloop () for"), "{text}");
        assert!(!text.contains("copy "), "{text}");
    }

    #[test]
    fn column_histograms_that_may_fail_keep_their_order() {
        // `p[j + 1]` is checked: the first column's failures come first.
        let text = lowered(
            "entry main [n] (d: i64) (k: i64) (ls: [n]i64) (ps: [n][]f32) : [d][k]f64 =\n  \
             tabulate d (\\j -> hist (+) 0.0f64 k ls (map (\\p -> f64.f32 p[j + 1]) ps))\n",
        );
        assert!(!text.contains("hist (flat_"), "{text}");
    }
}
