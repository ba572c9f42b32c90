//! Reductions down columns with the rows streamed: the loops of a nest
//! that `walks_columns` interchanged, for wide matrices.
//!
//! In (`map (\c -> reduce op ne (map2 f c v)) (transpose a)`, or the same
//! by `tabulate` or indices; `P` and `S` as in the module comment of
//! `loopy::jam`):
//!
//! ```text
//! loop map i < m
//!   P
//!   loop reduce k < n: acc = op(acc, f(a[k, i], v[k]))
//!   S (writes y[i] = acc)
//! ```
//!
//! Out (`B` columns a block, at most `stream_block` and a multiple of 16,
//! balanced over `ceil(m / stream_block)` blocks rounded up to a multiple
//! of `stream_parts`, the threads expected, so that none waits at the end):
//!
//! ```text
//! loop map t < ceil(m / B)
//!   first = t * B; count = min(B, m - first)
//!   P's checks; alloc acc [B] (per-thread: `loopy::scratch`)
//!   for j < count: acc[j] = ne
//!   for k < n
//!     what does not depend on the column (v[k], checked reads)
//!     for j < count: i = first + j; P; acc[j] = op(acc[j], f(a[k, i], v[k]))
//!   for j < count: i = first + j; P; S with acc[j] for the result
//! ```
//!
//! Why: the jammed form's strip of 64 columns reads 256 bytes of each row
//! and moves a whole row down, so on wide rows (8192 `f32`, 32 KiB apart)
//! every step is a new page that the hardware prefetcher has not seen;
//! here each block reads `B` consecutive elements of a row (whole pages)
//! into sums that stay in the L1 cache, as the hand-written C does. Each
//! column's sum still folds its rows in order `0..n` with the same
//! operations, whatever the operator: no associativity or commutativity
//! is assumed, so unlike a split into row ranges with per-thread partial
//! vectors (which would reassociate float sums) nothing is regrouped.
//! (A multiply and add may still contract into one rounding, as anywhere
//! in arrc without `--strict-fp`; LLVM does so in this loop, not in the
//! strips.) The nest
//! runs in parallel over column blocks, so it pays only where there are
//! several: `jam` takes it when `m >= stream_from`, checked at run time
//! (on the CPU, `stream_parts` times `stream_block`: a block of at least
//! `stream_block` columns per thread; `codegen::cpu`).
//!
//! Errors: `P` and the per-column statements of `R` cannot fail (as for
//! the jammed form); what may fail in `R` is the same in every column,
//! so the first block's first column meets it first, before any `S`, and
//! the `S`s run in column order, so the first error is still the first.

use super::super::block::{
    ceil_quot, i64c, invariant_assert, let_bin, outside, range_of, var, I64,
};
use super::super::ir::{
    block_vars, Block, LoopNest, MemSpace, Parallelism, SeqForm, SeqLoop, Stmt,
};
use super::super::rename::{Fresh, NameSource, Renaming};
use super::{float_let, JamLanes};
use crate::core::ir::{Atom, BinOp, Type, Var};
use std::collections::{BTreeSet, HashSet};

/// Columns of a block are a multiple of this (whole vectors).
const ALIGN: usize = 16;

/// The streamed form of `o` (split into `P`, `R`, `S` by `jam::matches`),
/// in blocks as `lanes` says; `None` where `R` is not a reduce nest of
/// straight-line scalar code whose per-column part cannot fail.
pub(super) fn streamed(
    o: &LoopNest,
    (p, r, s): (&[Stmt], &Stmt, &[Stmt]),
    lanes: JamLanes,
    fresh: &mut Fresh,
) -> Option<Block> {
    let Stmt::Loop(r) = r else {
        return None;
    };
    let map = o.par == Parallelism::Map && o.hists.is_empty() && o.scatters.is_empty();
    if !map || lanes.stream_block == 0 || lanes.stream_parts == 0 {
        return None;
    }
    let mut inside = HashSet::new();
    block_vars(&o.body, &mut BTreeSet::new(), &mut inside);
    inside.insert(o.index.id);
    let carried: Vec<_> = r.reductions.iter().flat_map(|red| &red.carried).collect();
    let results: Vec<&Var> = r.reductions.iter().flat_map(|red| &red.results).collect();
    if !outside(&r.width, &inside)
        || carried
            .iter()
            .any(|c| !matches!(c.var.ty, Type::Scalar(_)) || !outside(&c.init, &inside))
    {
        return None;
    }
    let (per_row, per_column) = split_body(o, p, r, &carried)?;
    let (checks, p_rest): (Vec<&Stmt>, Vec<&Stmt>) =
        p.iter().partition(|s| invariant_assert(s, &inside));

    // The block width and count, before the nest.
    let mut out = Vec::new();
    let wanted = ceil_quot(
        o.width,
        i64c(lanes.stream_block),
        "col_blocks",
        fresh,
        &mut out,
    );
    let rounds = ceil_quot(
        var(&wanted),
        i64c(lanes.stream_parts),
        "col_blocks",
        fresh,
        &mut out,
    );
    let parts = fresh.fresh_var("col_blocks", I64);
    let_bin(
        &mut out,
        &parts,
        BinOp::Mul,
        var(&rounds),
        i64c(lanes.stream_parts),
    );
    let some = fresh.fresh_var("col_blocks", I64);
    let_bin(&mut out, &some, BinOp::Max, var(&parts), i64c(1));
    let even = ceil_quot(o.width, var(&some), "col_block", fresh, &mut out);
    let vectors = ceil_quot(var(&even), i64c(ALIGN), "col_block", fresh, &mut out);
    let rounded = fresh.fresh_var("col_block", I64);
    let_bin(&mut out, &rounded, BinOp::Mul, var(&vectors), i64c(ALIGN));
    let width = fresh.fresh_var("col_block", I64);
    let_bin(&mut out, &width, BinOp::Max, var(&rounded), i64c(ALIGN));
    let blocks = ceil_quot(o.width, var(&width), "col_blocks", fresh, &mut out);

    let t = fresh.fresh_var("col_block", I64);
    let mut body: Block = checks.into_iter().cloned().collect();
    let (first, count) = range_of(&t, var(&width), o.width, fresh, &mut body);
    let accs: Vec<Var> = carried
        .iter()
        .map(|c| fresh.fresh_var("column_acc", Type::Array(c.var.ty.elem(), 1)))
        .collect();
    for acc in &accs {
        body.push(Stmt::Alloc {
            var: acc.clone(),
            shape: vec![var(&width)],
            space: MemSpace::Host,
        });
    }
    let j = fresh.fresh_var("col", I64);
    let init = accs
        .iter()
        .zip(&carried)
        .map(|(acc, c)| write(acc, &j, c.init))
        .collect();
    body.push(counted(j, var(&count), init));

    // The rows, each streamed through the block's sums.
    let k = fresh.fresh_var(&r.index.name, I64);
    let mut row_env = Renaming::default();
    row_env.map.insert(r.index.id, k.id);
    let mut row = row_env.block(fresh, &per_row);
    let j = fresh.fresh_var("col", I64);
    let mut env = row_env.clone();
    let mut step = column(o, &first, &j, &p_rest, &mut env, fresh);
    for (acc, c) in accs.iter().zip(&carried) {
        let v = env.def(fresh, &c.var);
        step.push(read(&v, acc, &j));
    }
    step.extend(env.block(fresh, &per_column));
    for (acc, c) in accs.iter().zip(&carried) {
        step.push(write(acc, &j, env.atom(&c.next)));
    }
    row.push(counted(j, var(&count), step));
    body.push(counted(k, r.width, row));

    // The results, column by column.
    let j = fresh.fresh_var("col", I64);
    let mut env = Renaming::default();
    let mut last = column(o, &first, &j, &p_rest, &mut env, fresh);
    for (acc, result) in accs.iter().zip(&results) {
        let v = env.def(fresh, result);
        last.push(read(&v, acc, &j));
    }
    last.extend(env.block(fresh, s));
    body.push(counted(j, var(&count), last));
    body.extend(accs.iter().map(|acc| Stmt::Free(acc.id)));

    let mut nest = LoopNest::map(o.origin, t, var(&blocks), body);
    nest.launch = o.launch;
    out.push(Stmt::Loop(nest));
    Some(out)
}

/// `R`'s body cut into what is the same for every column (it uses no
/// column's value: the vector's element of a row, a checked gather) and
/// what is computed per column (which must not fail); `None` if it has
/// anything but scalars and reads, or a per-column part that may fail.
fn split_body(
    o: &LoopNest,
    p: &[Stmt],
    r: &LoopNest,
    carried: &[&super::super::ir::Carried],
) -> Option<(Block, Block)> {
    let mut of_column = HashSet::new();
    block_vars(p, &mut BTreeSet::new(), &mut of_column);
    of_column.insert(o.index.id);
    of_column.extend(carried.iter().map(|c| c.var.id));
    let (mut per_row, mut per_column) = (Vec::new(), Vec::new());
    for stmt in &r.body {
        let fails = match stmt {
            Stmt::Let { exp, .. } => exp.may_fail() && !float_let(stmt),
            Stmt::Read { check, .. } => check.is_some(),
            _ => return None,
        };
        let mut uses = BTreeSet::new();
        let mut defs = HashSet::new();
        block_vars(std::slice::from_ref(stmt), &mut uses, &mut defs);
        if uses.iter().any(|v| of_column.contains(v)) {
            if fails {
                return None;
            }
            of_column.extend(defs);
            per_column.push(stmt.clone());
        } else {
            per_row.push(stmt.clone());
        }
    }
    Some((per_row, per_column))
}

/// The start of a loop body over a block's columns: the column's index
/// `first + j` for `o`'s and `P`'s statements, renamed by `env`.
fn column(
    o: &LoopNest,
    first: &Var,
    j: &Var,
    p: &[&Stmt],
    env: &mut Renaming,
    fresh: &mut Fresh,
) -> Block {
    let mut out = Vec::new();
    let i = env.def(fresh, &o.index);
    let_bin(&mut out, &i, BinOp::Add, var(first), var(j));
    for stmt in p {
        out.push(env.stmt(fresh, stmt));
    }
    out
}

fn read(v: &Var, acc: &Var, j: &Var) -> Stmt {
    Stmt::Read {
        var: v.clone(),
        array: acc.id,
        index: vec![var(j)],
        check: None,
    }
}

fn write(acc: &Var, j: &Var, value: Atom) -> Stmt {
    Stmt::Write {
        array: acc.id,
        index: vec![var(j)],
        value,
    }
}

/// `for index < bound do body`, nothing carried.
fn counted(index: Var, bound: Atom, body: Block) -> Stmt {
    Stmt::SeqLoop(SeqLoop {
        params: Vec::new(),
        form: SeqForm::For { index, bound },
        body,
        next: Vec::new(),
        results: Vec::new(),
    })
}
