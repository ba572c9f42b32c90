//! The `loopy-unroll` pass: loops with a small constant trip count inside
//! a nest's iteration become straight-line code (a `loopy::ir::Function`
//! in, the same with those loops replaced by copies of their bodies out).
//!
//! A 3 x 3 window (`map (\di -> sum (map (\dj -> ...) (iota 3))) (iota 3)`)
//! or a 4-vector's `map2` becomes nests of width 3 or 4 inside the nest
//! over the pixels or points; run as loops they cost a call, a loop and
//! their reductions' partial-result plumbing per element of the outer
//! nest. Unrolled, the copies see their index as a constant: reads of a
//! `[3][3]` kernel fold to fixed addresses and the reductions to a chain
//! of adds that LLVM keeps in registers.
//!
//! Unrolled: a nest inside another nest's body (at any depth) and a
//! `for` loop there, when the width is a constant of at most `MAX_TRIPS`,
//! the copies together stay under `MAX_STATEMENTS`, the nest carries only
//! scalar reductions (no scan, compaction or histogram) and the loop only
//! scalars. Each copy binds the index and the carried values with `let`s
//! and renames its definitions (`loopy::rename`); the results are bound to
//! the last copy's values. A nest at the top of a function stays a nest:
//! it is what runs in parallel.
//!
//! `#[unroll]` on a loop (LANGUAGE.md section 11) will ask for it whatever
//! the sizes once the front end keeps attributes: `unrolls` is where the
//! request goes.

use super::ir::{Block, Function, LoopNest, ScalarExp, SeqForm, SeqLoop, Stmt};
use super::rename::{fresh_above, Fresh, Renaming};
use crate::core::ir::{Atom, SrcLoc, Type, Var};
use crate::types::{Const, ScalarType};

/// The largest trip count unrolled.
pub const MAX_TRIPS: i64 = 8;

/// The most statements (counted at every depth) all copies may have.
pub const MAX_STATEMENTS: usize = 256;

pub fn unroll_small_loops(f: &mut Function) {
    let mut fresh = fresh_above(f);
    walk(&mut f.body, false, &mut fresh);
}

/// Rewrites the loops of `block`; `in_nest` when it runs inside a nest's
/// iteration.
fn walk(block: &mut Block, in_nest: bool, fresh: &mut Fresh) {
    let mut out = Vec::with_capacity(block.len());
    for mut stmt in std::mem::take(block) {
        // Inner loops first, so that a window's inner loop is unrolled
        // before the outer one counts its statements.
        let inside = in_nest || matches!(stmt, Stmt::Loop(_));
        for inner in stmt.inner_blocks_mut() {
            walk(inner, inside, fresh);
        }
        match stmt {
            Stmt::Loop(nest) if in_nest => match nest_trips(&nest) {
                Some(trips) => unroll_nest(&nest, trips, fresh, &mut out),
                None => out.push(Stmt::Loop(nest)),
            },
            Stmt::SeqLoop(lp) if in_nest => match seq_trips(&lp) {
                Some(trips) => unroll_seq(&lp, trips, fresh, &mut out),
                None => out.push(Stmt::SeqLoop(lp)),
            },
            other => out.push(other),
        }
    }
    *block = out;
}

/// Whether a loop of `trips` iterations over a body of `size` statements
/// is unrolled (the hook for `#[unroll]`).
fn unrolls(trips: i64, size: usize) -> bool {
    (0..=MAX_TRIPS).contains(&trips) && size.saturating_mul(trips as usize) <= MAX_STATEMENTS
}

fn constant_trips(width: &Atom) -> Option<i64> {
    match width {
        Atom::Const(Const::I64(w)) => Some(*w),
        Atom::Const(Const::I32(w)) => Some(i64::from(*w)),
        _ => None,
    }
}

fn nest_trips(nest: &LoopNest) -> Option<i64> {
    let simple = nest.scans.is_empty()
        && nest.compactions.is_empty()
        && nest.hists.is_empty()
        && nest.reductions.iter().all(|r| {
            r.carried
                .iter()
                .all(|c| matches!(c.var.ty, Type::Scalar(_)))
        });
    let trips = constant_trips(&nest.width)?;
    (simple && unrolls(trips, statements(&nest.body))).then_some(trips)
}

fn seq_trips(lp: &SeqLoop) -> Option<i64> {
    let SeqForm::For { bound, index } = &lp.form else {
        return None;
    };
    let scalars = lp
        .params
        .iter()
        .all(|p| matches!(p.var.ty, Type::Scalar(_)))
        && matches!(index.ty, Type::Scalar(ScalarType::I64 | ScalarType::I32));
    let trips = constant_trips(bound)?;
    (scalars && unrolls(trips, statements(&lp.body))).then_some(trips)
}

/// `let var = value`.
fn bind(var: Var, value: Atom) -> Stmt {
    Stmt::Let {
        var,
        exp: ScalarExp::Atom(value),
        loc: SrcLoc::default(),
    }
}

/// The index's value in iteration `k`, of the index's type.
fn index_value(index: &Var, k: i64) -> Atom {
    match index.ty.elem() {
        ScalarType::I32 => Atom::Const(Const::I32(k as i32)),
        _ => Atom::Const(Const::I64(k)),
    }
}

fn unroll_nest(nest: &LoopNest, trips: i64, fresh: &mut Fresh, out: &mut Block) {
    let carried: Vec<_> = nest.reductions.iter().flat_map(|r| &r.carried).collect();
    let mut current: Vec<Atom> = carried.iter().map(|c| c.init).collect();
    for k in 0..trips {
        let mut r = Renaming::default();
        let index = r.def(fresh, &nest.index);
        out.push(bind(index, index_value(&nest.index, k)));
        for (c, now) in carried.iter().zip(&current) {
            let var = r.def(fresh, &c.var);
            out.push(bind(var, *now));
        }
        out.extend(r.block(fresh, &nest.body));
        current = carried.iter().map(|c| r.atom(&c.next)).collect();
    }
    let results = nest.reductions.iter().flat_map(|r| &r.results);
    for (v, value) in results.zip(current) {
        out.push(bind(v.clone(), value));
    }
}

fn unroll_seq(lp: &SeqLoop, trips: i64, fresh: &mut Fresh, out: &mut Block) {
    let SeqForm::For { index, .. } = &lp.form else {
        return;
    };
    let mut current: Vec<Atom> = lp.params.iter().map(|p| p.init).collect();
    for k in 0..trips {
        let mut r = Renaming::default();
        let i = r.def(fresh, index);
        out.push(bind(i, index_value(index, k)));
        for (p, now) in lp.params.iter().zip(&current) {
            let var = r.def(fresh, &p.var);
            out.push(bind(var, *now));
        }
        out.extend(r.block(fresh, &lp.body));
        current = lp.next.iter().map(|a| r.atom(a)).collect();
    }
    for (p, value) in lp.results.iter().zip(current) {
        out.push(bind(p.var.clone(), value));
    }
}

/// Statements at every depth (operators not counted).
pub(super) fn statements(block: &[Stmt]) -> usize {
    block
        .iter()
        .map(|s| match s {
            Stmt::If {
                then_block,
                else_block,
                ..
            } => 1 + statements(then_block) + statements(else_block),
            Stmt::SeqLoop(lp) => {
                let cond = match &lp.form {
                    SeqForm::While { cond, .. } => statements(cond),
                    SeqForm::For { .. } => 0,
                };
                1 + cond + statements(&lp.body)
            }
            Stmt::Loop(nest) => 1 + statements(&nest.body),
            _ => 1,
        })
        .sum()
}
